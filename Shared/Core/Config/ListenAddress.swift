/// A listener address from configuration: `host:port`, `[v6]:port` for IPv6.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `value`, naming `key` in the error.
    public static func parse(_ value: String, key: String) throws(ConfigurationError) -> ListenAddress {
        var host = Substring(value)
        var portText: Substring = ""
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            host = value[value.index(after: value.startIndex)..<close]
            portText = value[value.index(after: close)...].dropFirst()
        } else if let colon = value.lastIndex(of: ":") {
            host = value[..<colon]
            portText = value[value.index(after: colon)...]
        }
        guard !host.isEmpty, let port = UInt16(portText) else {
            throw ConfigurationError(key: key, reason: "must be host:port", shownValue: value)
        }
        return ListenAddress(host: String(host), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
