extension PostgresClient.Configuration {
    /// Every server of the host list is a Unix socket or a loopback host: the connection never leaves the machine.
    public var isLocal: Bool { endpoints.allSatisfy(\.isLocal) }

    /// The first server of the host list whose connection leaves the machine, if any.
    public var firstRemoteEndpoint: Endpoint? { endpoints.first { !$0.isLocal } }
}
