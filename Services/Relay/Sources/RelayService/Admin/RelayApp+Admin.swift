import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

extension RelayApp {
    /// The admin listener: `/metrics`, `/healthz`, `/readyz`, and for the
    /// operator token `/admin` (an HTML status page) and `/admin/v1/deliveries`.
    func adminRouter() -> Router {
        let database = self.database
        // Local dependencies only: accounts' reachability is a metric (AccountsReachability),
        // or an accounts outage would take every relay instance out of its load balancer.
        var router = AdminRoutes.router(metrics: metrics, checks: [
            "postgres": { await database.isReachable() },
        ])
        router.get("/admin/v1/deliveries") { [self] request, _ in
            try checkOperator(request)
            let query = try DeliveryListQuery(request, now: clock())
            let deliveries = try await deliveryStatsStore.recent(query)
            var w = JSONWriter(capacity: 256 * deliveries.count + 32)
            w.beginObject()
            w.beginArray("deliveries")
            for d in deliveries { d.write(to: &w) }
            w.endArray()
            w.endObject()
            return .json(bytes: w.bytes)
        }
        router.get("/admin") { [self] request, _ in
            try checkOperator(request)
            let page = AdminPage(snapshot: try await statusSnapshot()).html
            return HTTPResponse(status: .ok, headers: [
                "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
                "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
                "X-Content-Type-Options": "nosniff",
            ], body: Array(page.utf8))
        }
        return router
    }

    /// The operator token as `Authorization: Bearer` or, for browsers, as the
    /// password of HTTP Basic authentication (any user name).
    func checkOperator(_ request: HTTPRequest) throws {
        guard let gate = operatorGate else {
            throw HTTPError(.notFound, code: "operator-api-disabled", detail: "set MAILWAKE_RELAY_OPERATOR_TOKEN to enable the operator pages")
        }
        if let header = request.headers["Authorization"], header.hasPrefix("Basic "),
           let decoded = Data(base64Encoded: String(header.dropFirst(6))).map(Array.init),
           let colon = decoded.firstIndex(of: UInt8(ascii: ":")) {
            var bearer = request
            bearer.headers.replace("Authorization", "Bearer " + String(decoding: decoded[(colon + 1)...], as: UTF8.self))
            do {
                try gate.check(bearer)
                return
            } catch {}
        } else if request.headers["Authorization"]?.hasPrefix("Bearer ") == true {
            try gate.check(request)
            return
        }
        throw HTTPError(.unauthorized, code: "token-required", detail: "the operator token is required",
                        headers: ["WWW-Authenticate": "Basic realm=\"mailwake-relay\", charset=\"UTF-8\""])
    }
}
