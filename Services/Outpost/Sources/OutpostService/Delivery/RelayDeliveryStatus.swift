import Foundation

/// `GET /v1/envelopes/{pairing_id}/{event_id}` from the relay.
struct RelayDeliveryStatus: Decodable, Sendable {
    var status: String
    var attempts: Int
    var apnsStatus: Int?
    var apnsReason: String?

    enum CodingKeys: String, CodingKey {
        case status, attempts
        case apnsStatus = "apns_status"
        case apnsReason = "apns_reason"
    }
}
