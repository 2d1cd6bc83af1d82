import MailwakeProtocol

/// One request the simulator received on `/3/device/…`, as recorded in
/// memory (`GET /_sim/deliveries`) and in the `--record` file (one JSON
/// object a line). Every request is recorded, refused ones too: `status`
/// and `reason` say how it was answered.
public struct Delivery: Sendable, Hashable {
    /// 1, 2, … in the order the requests were answered.
    public var seq: UInt64
    /// Wall-clock time the request was complete, ms since 1970.
    public var receivedAtMS: Int64
    public var connection: UInt64
    public var stream: Int32
    /// From the path; nil when the path was not `/3/device/<token>`.
    public var deviceToken: String?
    public var pushType: String?
    public var topic: String?
    /// `apns-priority` as a number; nil when absent or not a number.
    public var priority: Int?
    /// The request's `apns-id` header; nil when it had none.
    public var apnsID: String?
    public var collapseID: String?
    /// `apns-expiration` as a number; nil when absent or not a number.
    public var expiration: Int64?
    /// `kid`, `iss` and `iat` of the provider token, when it was verified.
    public var jwtKeyID: String?
    public var jwtIssuer: String?
    public var jwtIssuedAt: Int64?
    /// The body as received (JSON for valid requests), as text.
    public var payload: String
    public var status: Int
    /// The error reason; nil for 200.
    public var reason: String?
    /// Accepted (200) while the device was offline, so not delivered: APNs
    /// stores the last such one per device and delivers it, recorded again
    /// without `held`, when the device is back online (`POST /_sim/offline`).
    public var held: Bool = false

    public init(seq: UInt64, receivedAtMS: Int64, connection: UInt64, stream: Int32, deviceToken: String? = nil, pushType: String? = nil,
                topic: String? = nil, priority: Int? = nil, apnsID: String? = nil, collapseID: String? = nil, expiration: Int64? = nil,
                jwtKeyID: String? = nil, jwtIssuer: String? = nil, jwtIssuedAt: Int64? = nil, payload: String, status: Int,
                reason: String? = nil) {
        self.seq = seq
        self.receivedAtMS = receivedAtMS
        self.connection = connection
        self.stream = stream
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.apnsID = apnsID
        self.collapseID = collapseID
        self.expiration = expiration
        self.jwtKeyID = jwtKeyID
        self.jwtIssuer = jwtIssuer
        self.jwtIssuedAt = jwtIssuedAt
        self.payload = payload
        self.status = status
        self.reason = reason
    }

    /// The record as one JSON object and a newline.
    public func jsonLine() -> [UInt8] {
        var w = JSONWriter(capacity: 400 + payload.utf8.count * 11 / 10)
        w.beginObject()
        w.uint("seq", seq)
        w.int("received_at_ms", receivedAtMS)
        w.uint("connection", connection)
        w.int("stream", Int64(stream))
        w.optionalString("device_token", deviceToken)
        w.optionalString("push_type", pushType)
        w.optionalString("topic", topic)
        w.optionalInt("priority", priority.map(Int64.init))
        w.optionalString("apns_id", apnsID)
        w.optionalString("collapse_id", collapseID)
        w.optionalInt("expiration", expiration)
        w.optionalString("jwt_kid", jwtKeyID)
        w.optionalString("jwt_iss", jwtIssuer)
        w.optionalInt("jwt_iat", jwtIssuedAt)
        w.string("payload", payload)
        w.int("status", Int64(status))
        w.optionalString("reason", reason)
        if held { w.bool("held", true) }
        w.endObject()
        var bytes = w.bytes
        bytes.append(0x0A)
        return bytes
    }
}
