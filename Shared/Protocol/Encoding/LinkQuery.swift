/// Percent-encoding and query parsing for `mailwake://` links.
public enum LinkQuery {
    /// Escapes every byte outside `A-Z a-z 0-9 - . _ ~` as `%XX` (upper-case hex).
    public static func encode(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        for b in value.utf8 {
            let unreserved = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
            if unreserved {
                out.append(b)
            } else {
                out.append(contentsOf: [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes; `+` stays `+`. Nil for a broken escape or invalid UTF-8.
    static func decode(_ value: Substring) -> String? {
        var out = [UInt8]()
        var it = Array(value.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%") {
                guard let h = it.popFirst(), let l = it.popFirst(), let hi = hexValue(h), let lo = hexValue(l) else { return nil }
                out.append(hi << 4 | lo)
            } else {
                out.append(b)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    /// Splits `mailwake://<host>?a=b&c=d` into ordered, decoded parameters.
    ///
    /// - Parameters:
    ///   - link: the whole link.
    ///   - host: `pair` or `manage`.
    static func parse(_ link: String, host: String) throws(ProtocolError) -> [(String, String)] {
        guard link.utf8.count <= 2048 else { throw ProtocolError(.tooLarge, "link longer than 2048 bytes") }
        let prefix = "mailwake://\(host)?"
        guard link.hasPrefix(prefix) else { throw .malformed("link must start with \(prefix)") }
        guard !link.contains("#") else { throw .malformed("link must not have a fragment") }
        var out: [(String, String)] = []
        var seen = Set<String>()
        for pair in link.dropFirst(prefix.count).split(separator: "&", omittingEmptySubsequences: false) {
            guard let eq = pair.firstIndex(of: "=") else { throw .malformed("link parameter without '='") }
            guard let key = decode(pair[..<eq]), let value = decode(pair[pair.index(after: eq)...]) else {
                throw .malformed("link parameter with a broken percent-escape")
            }
            guard seen.insert(key).inserted else { throw .malformed("link repeats parameter \(key)") }
            out.append((key, value))
        }
        return out
    }

    /// Checks an `https` origin: `https://host[:port]` where host is DNS
    /// labels (letters, digits, inner hyphens, each 1–63 characters; dotted
    /// IPv4 fits) or a bracketed IPv6 literal, and port is 1–65535 without a
    /// sign or leading zeros. No user info, path, query or fragment.
    static func checkOrigin(_ origin: String, field: String) throws(ProtocolError) {
        guard origin.utf8.count <= EncryptionContext.maxAudienceBytes else { throw ProtocolError(.tooLarge, "\(field) is too long") }
        guard origin.hasPrefix("https://") else { throw .malformed("\(field) must be an https origin (https://host[:port])") }
        let authority = origin.dropFirst("https://".count)
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .malformed("\(field) has a broken IPv6 literal") }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { throw .malformed("\(field) must be https://host[:port]") }
                port = rest.dropFirst()
            }
            let inner = host.dropFirst().dropLast()
            guard !inner.isEmpty, inner.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." }) else {
                throw .malformed("\(field) has a broken IPv6 literal")
            }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            }
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            for label in labels {
                let ok = (1...63).contains(label.utf8.count)
                    && label.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                        || $0 == 0x2D }
                    && label.utf8.first != 0x2D && label.utf8.last != 0x2D
                guard ok else { throw .malformed("\(field) must be https://host[:port] with a DNS name or IP address host") }
            }
        }
        if let port { try checkPort(port, field: field) }
    }

    private static func checkPort(_ digits: Substring, field: String) throws(ProtocolError) {
        guard (1...5).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.utf8.first != 0x30,
              let port = Int(digits), port <= 65535
        else {
            throw .malformed("\(field) has an invalid port")
        }
    }
}
