/// The parts of a message fetched for a notification: its header, the
/// start of its body, INTERNALDATE and size. Fetched with BODY.PEEK, so the
/// message stays unread.
public struct IMAPFetchedMessage: Sendable, Equatable {
    public let uid: UInt32
    /// INTERNALDATE as Unix seconds (0 when the server sent none).
    public let internalDate: Int64
    public let size: Int
    /// The header block, CRLF CRLF included.
    public let header: [UInt8]
    /// The first bytes of the body (`BODY.PEEK[TEXT]<0.N>`), when fetched.
    public var textPrefix: [UInt8]

    /// Header and body prefix as one (possibly truncated) RFC 822 message.
    public var rfc822Prefix: [UInt8] { header + textPrefix }
}
