/// Percent-encoding and query parsing for `mailwake://` links.
enum LinkQuery {
    /// Escapes every byte outside `A-Z a-z 0-9 - . _ ~` as `%XX` (upper-case hex).
    static func encode(_ value: String) -> String {
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

    /// Checks an `https` origin (`http` only for loopback hosts): scheme,
    /// host and optional port; no user info, path, query or fragment.
    static func checkOrigin(_ origin: String, field: String) throws(ProtocolError) {
        guard origin.utf8.count <= EncryptionContext.maxAudienceBytes else { throw ProtocolError(.tooLarge, "\(field) is too long") }
        let scheme: String
        if origin.hasPrefix("https://") { scheme = "https" } else if origin.hasPrefix("http://") { scheme = "http" } else {
            throw .malformed("\(field) must be an https origin")
        }
        let authority = origin.dropFirst(scheme.count + 3)
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ \\".contains($0) }) else {
            throw .malformed("\(field) must be scheme://host[:port] without path, query or user info")
        }
        var host = authority
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .malformed("\(field) has a broken IPv6 literal") }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty { try checkPort(rest, field: field) }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            try checkPort(authority[colon...], field: field)
        }
        guard !host.isEmpty else { throw .malformed("\(field) has no host") }
        if scheme == "http" {
            guard ["localhost", "127.0.0.1", "[::1]"].contains(String(host)) else {
                throw .malformed("\(field) may use http only for a loopback host")
            }
        }
    }

    private static func checkPort(_ s: Substring, field: String) throws(ProtocolError) {
        let digits = s.dropFirst()
        guard s.first == ":", !digits.isEmpty, digits.count <= 5, digits.allSatisfy(\.isASCII), let port = Int(digits), port > 0, port < 65536 else {
            throw .malformed("\(field) has an invalid port")
        }
    }
}
