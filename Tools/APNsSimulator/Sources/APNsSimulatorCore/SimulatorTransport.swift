/// What the simulator may ask of the server carrying its requests.
public protocol SimulatorTransport: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS for connections opened from now on.
    func setMaxConcurrentStreams(_ value: Int)
    /// Sends GOAWAY on connection `connection` (nil: all); returns how many were asked.
    func goaway(connection: UInt64?) -> Int
    /// Connections accepted since start.
    var connectionsAccepted: UInt64 { get }
    /// Connections open now.
    var connectionsOpen: UInt64 { get }
}
