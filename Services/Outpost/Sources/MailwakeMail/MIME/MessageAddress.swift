/// One address of a message header.
public struct MessageAddress: Sendable, Hashable {
    /// The display name, decoded (may be empty).
    public var name: String
    /// The address (may be empty for a malformed one).
    public var address: String

    public init(name: String, address: String) {
        self.name = name
        self.address = address
    }
}
