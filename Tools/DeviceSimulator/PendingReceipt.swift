/// A notification the inbox showed (or dropped as a duplicate) that the relay has not acknowledged yet (PROTOCOL.md §13).
struct PendingReceipt: Codable, Sendable, Hashable {
    var pairingID: String
    var eventID: String
    /// Unix milliseconds on this device's clock.
    var shownAt: Int64

    /// The inbox's dedupe key, `pairing_id/event_id`.
    var key: String { pairingID + "/" + eventID }
}
