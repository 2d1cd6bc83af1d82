public import MailwakeProtocol

/// A pending management invitation: what its one-time token offers.
public struct Invitation: Sendable, Hashable {
    /// SHA-256 of the token (the token itself is never stored).
    public var tokenHash: [UInt8]
    public var scopes: [ManagementScope]
    /// Mailboxes the `content` scope is limited to; nil: all.
    public var mailboxIDs: [Int64]?
    /// The push pairing offered with it, when `push` is offered.
    public var pairingID: String?
    public var createdAt: Int64
    public var expiresAt: Int64
    public var redeemedAt: Int64?
    public var redeemedBy: String?
}
