extension PostgresClient.Configuration {
    /// A Unix socket or a loopback host: the connection never leaves the machine.
    public var isLocal: Bool {
        if unixSocketDirectory != nil { return true }
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { p in UInt8(p).map { _ in true } ?? false }
    }
}
