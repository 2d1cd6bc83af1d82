public import MailwakeProtocol

/// A permission a device holds on this outpost (PROTOCOL.md §10): `manage`
/// or `content`, optionally limited to some mailboxes. `push` is the
/// device's active pairing, not a row here.
public struct DevicePermission: Sendable, Hashable {
    public var id: Int64
    public var deviceID: String
    public var scope: ManagementScope
    /// The mailboxes it covers; nil: every mailbox.
    public var mailboxIDs: [Int64]?
    public var grantedAt: Int64
    /// `cli`, `invitation`, or the id of the managing device that granted it.
    public var grantedBy: String
    public var revokedAt: Int64?

    /// Whether it covers `mailboxID`.
    public func covers(mailboxID: Int64) -> Bool {
        mailboxIDs.map { $0.contains(mailboxID) } ?? true
    }
}
