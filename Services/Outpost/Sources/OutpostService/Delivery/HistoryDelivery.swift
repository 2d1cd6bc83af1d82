/// How one device fared with one history entry, with the chain of times the outpost knows (PROTOCOL.md §13).
public struct HistoryDelivery: Sendable, Hashable {
    public var deviceID: String
    /// `pending`, `queued`, `sent`, `displayed`, `failed` or `expired`.
    public var status: String
    public var detail: String?
    /// The relay answered 202 (the outpost's clock, Unix seconds).
    public var acceptedAt: Int64?
    /// APNs accepted the push (the relay's clock).
    public var sentAt: Int64?
    /// The device showed it (its receipt, clamped by the relay).
    public var displayedAt: Int64?
    /// Sent and still followed for a receipt.
    public var awaitingReceipt: Bool
}
