/// What SELECT/EXAMINE reported about a folder.
public struct IMAPSelection: Sendable, Equatable {
    public let uidValidity: UInt32
    /// The UID the next message will get; nil when the server did not say.
    public let uidNext: UInt32?
    public let exists: UInt32
    /// HIGHESTMODSEQ (RFC 7162 CONDSTORE); nil when the server does not offer
    /// CONDSTORE or the folder has no mod-sequences (NOMODSEQ).
    public let highestModSeq: UInt64?

    public init(uidValidity: UInt32, uidNext: UInt32?, exists: UInt32, highestModSeq: UInt64? = nil) {
        self.uidValidity = uidValidity
        self.uidNext = uidNext
        self.exists = exists
        self.highestModSeq = highestModSeq
    }
}
