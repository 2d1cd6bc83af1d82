import MailwakeProtocol

/// How the simulator answers requests for one device token, set with
/// `POST /_sim/behaviours`:
/// `{"token":"<hex>","status":410,"reason":"Unregistered","times":N|null,"latency_ms":N|null,"timestamp":ms|null}`.
///
/// It applies to requests that pass every APNs check. `times` counts the
/// requests it still answers (nil: all of them); `status` 200 with a
/// `latency_ms` only slows that token down.
public struct Behaviour: Sendable, Hashable, Decodable {
    /// The device token (hex, compared without regard to case).
    public var token: String
    /// 200, or the error status to answer.
    public var status: Int
    /// The `reason` of the error body; a sensible Apple reason for the status when nil.
    public var reason: String?
    /// Requests still to answer this way; nil for every request.
    public var times: Int?
    /// Milliseconds to hold each answer back.
    public var latencyMS: Int?
    /// The `timestamp` of a 410 body (ms); the time of the request when nil.
    public var timestamp: Int64?

    public init(token: String, status: Int, reason: String? = nil, times: Int? = nil, latencyMS: Int? = nil, timestamp: Int64? = nil) {
        self.token = token
        self.status = status
        self.reason = reason
        self.times = times
        self.latencyMS = latencyMS
        self.timestamp = timestamp
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, status, reason, times, timestamp
        case latencyMS = "latency_ms"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "behaviour")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        token = try c.decode(String.self, forKey: .token)
        status = try c.decode(Int.self, forKey: .status)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        times = try c.decodeIfPresent(Int.self, forKey: .times)
        latencyMS = try c.decodeIfPresent(Int.self, forKey: .latencyMS)
        timestamp = try c.decodeIfPresent(Int64.self, forKey: .timestamp)
    }

    /// The first thing wrong with this behaviour, or nil.
    public var problem: String? {
        if !RequestValidator.isDeviceToken(token.utf8) { return "token must be 64 to 200 hexadecimal digits" }
        if status != 200 && !(400...599).contains(status) { return "status must be 200 or 400...599" }
        if let times, times < 1 { return "times must be at least 1, or null for every request" }
        if let latencyMS, !(0...600_000).contains(latencyMS) { return "latency_ms must be 0...600000" }
        if let reason, reason.isEmpty || reason.utf8.count > 128 { return "reason must be 1...128 bytes" }
        return nil
    }

    /// The JSON of this behaviour (for `GET /_sim/behaviours`).
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.string("token", token)
        w.int("status", Int64(status))
        w.optionalString("reason", reason)
        w.optionalInt("times", times.map(Int64.init))
        w.optionalInt("latency_ms", latencyMS.map(Int64.init))
        w.optionalInt("timestamp", timestamp)
        w.endObject()
    }
}
