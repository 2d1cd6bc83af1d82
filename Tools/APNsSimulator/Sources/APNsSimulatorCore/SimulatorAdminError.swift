/// A `/_sim/` request the simulator cannot act on (answered 400 with
/// `{"error": message}`).
public struct SimulatorAdminError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
