import Foundation

/// The relay's answer to `GET /v1/envelopes/{pairing_id}/{event_id}`: where
/// one envelope is (PROTOCOL.md §13 for the per-hop times).
public struct DeliveryStatusReport: Sendable, Hashable {
    /// The status as sent; `status` is nil for a value this version does not know (a newer relay).
    public var statusText: String
    public var attempts: Int
    public var apnsStatus: Int?
    public var apnsReason: DeliveryReason?
    /// The relay's clock, Unix seconds.
    public var updatedAt: Int64
    /// When the relay accepted the envelope (Unix seconds); 0 from relays without per-hop times.
    public var acceptedAt: Int64
    /// When APNs accepted the push; nil before, and from relays without receipts.
    public var sentAt: Int64?
    /// When the device showed it (its receipt, clamped by the relay).
    public var displayedAt: Int64?

    public var status: DeliveryStatus? { DeliveryStatus(rawValue: statusText) }

    public init(status: DeliveryStatus, attempts: Int, apnsStatus: Int?, apnsReason: DeliveryReason?, updatedAt: Int64,
                acceptedAt: Int64, sentAt: Int64?, displayedAt: Int64?) {
        self.init(statusText: status.rawValue, attempts: attempts, apnsStatus: apnsStatus, apnsReason: apnsReason, updatedAt: updatedAt,
                  acceptedAt: acceptedAt, sentAt: sentAt, displayedAt: displayedAt)
    }

    init(statusText: String, attempts: Int, apnsStatus: Int?, apnsReason: DeliveryReason?, updatedAt: Int64, acceptedAt: Int64,
         sentAt: Int64?, displayedAt: Int64?) {
        self.statusText = statusText
        self.attempts = attempts
        self.apnsStatus = apnsStatus
        self.apnsReason = apnsReason
        self.updatedAt = updatedAt
        self.acceptedAt = acceptedAt
        self.sentAt = sentAt
        self.displayedAt = displayedAt
    }

    /// The JSON body (`sent_at` and `displayed_at` only once they happened).
    public var jsonBytes: [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.string("status", statusText)
        w.int("attempts", Int64(attempts))
        if let apnsStatus { w.int("apns_status", Int64(apnsStatus)) } else { w.raw("apns_status", Array("null".utf8)) }
        if let apnsReason { w.string("apns_reason", apnsReason.rawValue) } else { w.raw("apns_reason", Array("null".utf8)) }
        w.int("updated_at", updatedAt)
        w.int("accepted_at", acceptedAt)
        if let sentAt { w.int("sent_at", sentAt) }
        if let displayedAt { w.int("displayed_at", displayedAt) }
        w.endObject()
        return w.bytes
    }

    /// Reads a relay's answer; unknown fields are ignored (a newer relay may add some), missing times are absent.
    public static func decode(_ bytes: [UInt8]) throws -> DeliveryStatusReport {
        let w = try JSONDecoder().decode(Wire.self, from: Data(bytes))
        return DeliveryStatusReport(statusText: w.status, attempts: w.attempts, apnsStatus: w.apnsStatus,
                                    apnsReason: w.apnsReason.map(DeliveryReason.init(rawValue:)), updatedAt: w.updatedAt ?? 0,
                                    acceptedAt: w.acceptedAt ?? 0, sentAt: w.sentAt, displayedAt: w.displayedAt)
    }

    private struct Wire: Decodable {
        var status: String
        var attempts: Int
        var apnsStatus: Int?
        var apnsReason: String?
        var updatedAt: Int64?
        var acceptedAt: Int64?
        var sentAt: Int64?
        var displayedAt: Int64?

        enum CodingKeys: String, CodingKey {
            case status, attempts
            case apnsStatus = "apns_status"
            case apnsReason = "apns_reason"
            case updatedAt = "updated_at"
            case acceptedAt = "accepted_at"
            case sentAt = "sent_at"
            case displayedAt = "displayed_at"
        }
    }
}
