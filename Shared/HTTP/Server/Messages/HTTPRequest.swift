public import MailwakeHTTPTypes

/// A complete HTTP request as received: head and body.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request target exactly as sent (`/v1/pairings/x/consent?wait=30`);
    /// signed requests sign these bytes (PROTOCOL.md §8).
    public var target: String
    /// The path part of `target`, still percent-encoded.
    public var rawPath: Substring { target[..<(target.utf8.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)] }
    /// The query part of `target` without `?`, still encoded (empty if none).
    public var rawQuery: Substring {
        guard let q = target.firstIndex(of: "?") else { return "" }
        return target[target.index(after: q)...]
    }
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's IP address.
    public var remoteAddress: String

    public init(method: HTTPMethod, target: String, version: String = "HTTP/1.1", headers: HTTPHeaders = [:], body: [UInt8] = [],
                remoteAddress: String = "") {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The decoded query parameters in order (`+` is a space, `%XX` decoded);
    /// a parameter that cannot be decoded is left out.
    public var queryItems: [(name: String, value: String)] {
        guard !rawQuery.isEmpty else { return [] }
        return rawQuery.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(parts[0], plusIsSpace: true) else { return nil }
            let value = parts.count > 1 ? PercentDecoding.decode(parts[1], plusIsSpace: true) : ""
            return value.map { (name: name, value: $0) }
        }
    }

    /// The first value of query parameter `name`.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
