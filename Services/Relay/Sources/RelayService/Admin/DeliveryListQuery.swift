import MailwakeProtocol

import MailwakeHTTPServer

/// `?status=&since=&limit=` of `GET /admin/v1/deliveries`.
struct DeliveryListQuery: Sendable {
    var status: DeliveryStatus?
    /// Unix seconds; default the last hour.
    var since: Int64
    var limit: Int

    init(_ request: HTTPRequest, now: Int64) throws {
        if let raw = request.query("status") {
            guard let s = DeliveryStatus(rawValue: raw) else {
                throw HTTPError(.badRequest, code: .badStatus,
                                detail: "status must be one of \(DeliveryStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            status = s
        }
        if let raw = request.query("since") {
            guard let s = Int64(raw), s >= 0 else { throw HTTPError(.badRequest, code: .badSince, detail: "since must be Unix seconds") }
            since = s
        } else {
            since = now - 3600
        }
        if let raw = request.query("limit") {
            guard let n = Int(raw),
                  (1...1000).contains(n) else { throw HTTPError(.badRequest, code: .badLimit, detail: "limit must be 1 to 1000") }
            limit = n
        } else {
            limit = 100
        }
    }
}
