extension PostgresClient.Configuration {
    /// One server of the host list: a host name, IP address or Unix socket directory, and its port.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// Host name, IP address, or a Unix socket directory (starts with `/`).
        public var host: String
        /// TCP port, also the number in the Unix socket's file name.
        public var port: Int

        public init(host: String, port: Int = 5432) {
            self.host = host
            self.port = port
        }

        /// Whether `host` is a Unix socket directory.
        public var isUnixSocket: Bool { host.hasPrefix("/") }

        /// A Unix socket or a loopback host: the connection never leaves the machine.
        public var isLocal: Bool {
            if isUnixSocket { return true }
            let h = host.lowercased()
            if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
            let parts = h.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { p in UInt8(p).map { _ in true } ?? false }
        }

        /// `host:port`, `[v6]:port` or `unix:/dir/.s.PGSQL.port`.
        public var description: String {
            if isUnixSocket { return "unix:\(host)/.s.PGSQL.\(port)" }
            return (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        }
    }
}
