/// One envelope for one pairing in the outpost's `deliveries` table: stored
/// before the first submission and sent again as the same bytes until the
/// relay has it, then followed until the relay says how it ended.
public struct DeliveryRecord: Sendable, Hashable {
    /// `pending` (the relay does not have it yet), `queued` (the relay has
    /// it), `sent`, `failed`, `expired`.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case pending, queued, sent, failed, expired
    }

    public var pairingID: String
    public var eventID: String
    public var envelope: [UInt8]
    public var status: Status
    public var attempts: Int
    public var expiresAt: Int64
    public var lastError: String?
    /// `notification`, `live-activity-start` or `live-activity-end`.
    public var kind: String = "notification"
    /// Sent, and still followed for the device's receipt (PROTOCOL.md §13).
    public var awaitingReceipt: Bool = false
    /// When the outpost stored it (the mail was noticed), its own clock.
    public var createdAt: Int64 = 0
    /// When the relay answered 202, the outpost's clock; nil before.
    public var acceptedAt: Int64? = nil
    /// When APNs accepted the push, the relay's clock; nil before (or unknown).
    public var sentAt: Int64? = nil
}
