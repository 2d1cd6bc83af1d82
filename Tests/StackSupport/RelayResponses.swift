/// The shapes of the relay's answers tests read, decoded as a client would; the delivery status is the shared
/// `DeliveryStatusReport` itself.
public enum RelayResponses {
    /// `202` to `POST /v1/envelopes`, and a pairing's state (`GET /v1/pairings/{id}/consent`).
    public struct Status: Decodable, Sendable {
        public let status: String
    }

    /// `POST /v1/devices/{id}/receipts`.
    public struct ReceiptOutcome: Decodable, Sendable, Equatable {
        public let displayed: Int
        public let duplicate: Int
        public let ignored: Int
        public let trimmed: Int

        public init(displayed: Int, duplicate: Int, ignored: Int, trimmed: Int) {
            self.displayed = displayed
            self.duplicate = duplicate
            self.ignored = ignored
            self.trimmed = trimmed
        }
    }

    /// `GET /readyz`.
    public struct Readiness: Decodable, Sendable {
        public let status: String
        public let checks: [String: String]
    }

    /// A page of a device's catch-up log (`GET /v1/devices/{id}/envelopes`).
    public struct CatchUpPage: Decodable, Sendable {
        public struct Entry: Decodable, Sendable {
            public let eventID: String
            enum CodingKeys: String, CodingKey { case eventID = "event_id" }
        }
        public let envelopes: [Entry]
        public let more: Bool
        public var eventIDs: [String] { envelopes.map(\.eventID) }
    }

    /// `GET /admin/v1/deliveries`.
    public struct DeliveryList: Decodable, Sendable {
        public struct Item: Decodable, Sendable {
            public let eventID: String
            public let apnsReason: String?
            public let payload: String?
            enum CodingKeys: String, CodingKey {
                case eventID = "event_id"
                case apnsReason = "apns_reason"
                case payload
            }
        }
        public let deliveries: [Item]
    }
}
