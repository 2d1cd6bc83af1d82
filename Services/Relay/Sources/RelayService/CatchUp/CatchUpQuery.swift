import MailwakeHTTPServer
import MailwakeProtocol

/// `?after=&limit=` of `GET /v1/devices/{device_id}/envelopes` (PROTOCOL.md §12).
struct CatchUpQuery: Sendable {
    static let maxLimit = 100

    /// Read after this event (its latest acceptance for the device); nil: from the oldest kept.
    var after: String?
    var limit: Int

    init(_ request: HTTPRequest) throws {
        for item in request.queryItems where item.name != "after" && item.name != "limit" {
            throw HTTPError(.badRequest, code: .badParameter,
                            detail: "unknown query parameter \(item.name); only after and limit are read")
        }
        if let raw = request.query("after") {
            guard EventID.isValid(raw) else { throw HTTPError(.badRequest, code: .badAfter, detail: "after must be an event id (a UUID)") }
            after = raw
        }
        if let raw = request.query("limit") {
            guard let n = Int(raw), (1...Self.maxLimit).contains(n) else {
                throw HTTPError(.badRequest, code: .badLimit, detail: "limit must be 1 to \(Self.maxLimit)")
            }
            limit = n
        } else {
            limit = Self.maxLimit
        }
    }
}
