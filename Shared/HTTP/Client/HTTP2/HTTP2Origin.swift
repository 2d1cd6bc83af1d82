/// The one origin an `HTTP2Client` talks to: `https://host[:port]`.
struct HTTP2Origin: Sendable, Hashable {
    /// A DNS name or an IP literal (IPv6 without brackets).
    let host: String
    let port: UInt16
    /// `https://host[:port]` as given, lower-cased: what request URLs must start with.
    let prefix: String

    /// Parses `https://host[:port]`, nothing after it but an optional `/`.
    init(_ text: String) throws {
        func bad(_ why: String) -> HTTPClientError { HTTPClientError(.invalidConfiguration, "origin \(text): \(why)") }
        var rest = Substring(text.lowercased())
        guard rest.hasPrefix("https://") else { throw bad("must start with https://") }
        rest = rest.dropFirst(8)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "@" || $0.isWhitespace }) else {
            throw bad("must be https://host[:port] with no path, query or user")
        }
        var host = rest, port: UInt16 = 443
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw bad("unterminated IPv6 literal") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = UInt16(after.dropFirst()), p > 0 else { throw bad("bad port") }
                port = p
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let p = UInt16(rest[rest.index(after: colon)...]), p > 0 else { throw bad("bad port") }
            port = p
        }
        guard !host.isEmpty else { throw bad("no host") }
        self.host = String(host)
        self.port = port
        prefix = "https://" + rest
    }

    /// The `:path` of `url`, which must be on this origin: what follows the
    /// origin, `/` when nothing does.
    func path(of url: String) throws -> Substring {
        let onOrigin = url.utf8.count >= prefix.utf8.count && url.withContiguousUTF8 { u in
            prefix.withContiguousUTF8 { p in
                p.indices.allSatisfy { i in (u[i] >= 0x41 && u[i] <= 0x5A ? u[i] | 0x20 : u[i]) == p[i] }
            }
        }
        guard onOrigin else {
            throw HTTPClientError(.invalidRequest, "the URL is not on this client's origin \(prefix)")
        }
        let rest = url.utf8.dropFirst(prefix.utf8.count)
        guard let first = rest.first else { return "/" }
        if first == UInt8(ascii: "/") { return Substring(rest) }
        if first == UInt8(ascii: "?") { return Substring("/" + String(Substring(rest))) }
        throw HTTPClientError(.invalidRequest, "the URL is not on this client's origin \(prefix)")
    }
}
