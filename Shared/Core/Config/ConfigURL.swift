/// An absolute `http`/`https` (or other allowed scheme) URL from configuration,
/// checked strictly: a scheme from an allow-list, a host, an optional port
/// 1–65535, no user name or password (credentials belong in secret settings),
/// no spaces or control characters.
public struct ConfigURL: Sendable, Hashable, CustomStringConvertible {
    /// Lower-case scheme (`https`).
    public let scheme: String
    /// Lower-case host name or address (IPv6 without brackets).
    public let host: String
    /// The explicit port, or nil.
    public let port: Int?
    /// Everything after the authority: path, query and fragment (may be empty).
    public let pathAndQuery: String

    /// `scheme://host[:port]` (IPv6 hosts in brackets).
    public var origin: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(h)" + (port.map { ":\($0)" } ?? "")
    }

    /// The whole URL, normalised (lower-case scheme and host).
    public var string: String { origin + pathAndQuery }
    public var description: String { string }

    /// The port, or the scheme's default (443 for https, 80 for http).
    public var effectivePort: Int? { port ?? ["https": 443, "http": 80, "wss": 443, "ws": 80][scheme] }

    /// Parses `text`, allowing only `schemes`; with `originOnly`, nothing may follow the authority but `/`.
    public static func parse(_ text: String, schemes: Set<String>, originOnly: Bool = false) throws(ConfigurationValueError) -> ConfigURL {
        let allowed = schemes.sorted().joined(separator: " or ")
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw ConfigurationValueError("must be a URL without spaces or control characters")
        }
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else {
            throw ConfigurationValueError("must be an absolute \(allowed) URL")
        }
        let scheme = text[..<colon].lowercased()
        guard schemes.contains(scheme) else { throw ConfigurationValueError("must be an absolute \(allowed) URL") }
        let rest = text[text.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let tail = String(rest[authorityEnd...])
        guard !authority.contains("@") else {
            throw ConfigurationValueError("must not contain a user name or password (put credentials in their secret setting)")
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw ConfigurationValueError("has an unterminated IPv6 address") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ConfigurationValueError("has text after the IPv6 address") }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw ConfigurationValueError("has an invalid IPv6 address")
            }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty else { throw ConfigurationValueError("must name a host") }
            guard host.unicodeScalars.allSatisfy(Self.isHostScalar) else {
                throw ConfigurationValueError("has an invalid host name")
            }
        }
        var port: Int?
        if let portText {
            guard let p = Int(portText), portText.allSatisfy(\.isASCIIDigit), (1...65535).contains(p) else {
                throw ConfigurationValueError("has an invalid port (1 to 65535)")
            }
            port = p
        }
        if originOnly, !(tail.isEmpty || tail == "/") {
            throw ConfigurationValueError("must be an origin (scheme://host[:port]) without a path or query")
        }
        return ConfigURL(scheme: scheme, host: host.lowercased(), port: port, pathAndQuery: originOnly ? "" : tail)
    }
}

extension ConfigURL {
    static func isHostScalar(_ s: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s) || s == "." || s == "-" || s == "_"
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
