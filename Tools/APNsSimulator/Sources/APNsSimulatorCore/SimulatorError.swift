/// Something the simulator cannot do: a `/_sim/` request it cannot act on
/// (answered 400 with `{"error": message}`), or a start-up failure (the
/// listener, the TLS files, the record file).
public struct SimulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
