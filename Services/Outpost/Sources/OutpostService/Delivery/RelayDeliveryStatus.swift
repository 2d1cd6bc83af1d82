import Foundation

/// `GET /v1/envelopes/{pairing_id}/{event_id}` from the relay.
struct RelayDeliveryStatus: Decodable, Sendable {
    var status: String
    var attempts: Int
    var apnsStatus: Int?
    var apnsReason: String?
    /// When APNs accepted the push (relay clock, Unix seconds); absent before, and from relays without receipts.
    var sentAt: Int64?
    /// When the device showed it (its receipt, clamped by the relay; Unix seconds), PROTOCOL.md §13.
    var displayedAt: Int64?

    enum CodingKeys: String, CodingKey {
        case status, attempts
        case apnsStatus = "apns_status"
        case apnsReason = "apns_reason"
        case sentAt = "sent_at"
        case displayedAt = "displayed_at"
    }
}
