import MailwakeProtocol

/// One push to APNs (PROTOCOL.md §11): where, with which headers, and the payload.
struct APNsRequest: Sendable {
    var deviceToken: String
    var environment: PushEnvironment
    var pushType: String
    var topic: String
    /// The envelope's `event_id` (a UUID): `apns-id` and `apns-collapse-id`.
    var eventID: String
    /// `apns-expiration`, Unix seconds.
    var expiration: Int64
    var priority: Int
    var payload: [UInt8]
}
