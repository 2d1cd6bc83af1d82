/// What SELECT/EXAMINE reported about a folder.
public struct IMAPSelection: Sendable, Equatable {
    public let uidValidity: UInt32
    /// The UID the next message will get; nil when the server did not say.
    public let uidNext: UInt32?
    public let exists: UInt32
}
