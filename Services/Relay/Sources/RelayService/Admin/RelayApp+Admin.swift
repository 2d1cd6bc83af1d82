import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol
import MailwakeServiceSupport

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
        // A database that is away, or a statement past the relay's `statement_timeout`, answers 503, not 500.
        router.group(middleware: [OperatorAuthentication(gate: operatorGate), DatabaseUnavailableMiddleware()]) { operatorPages in
            addOperatorRoutes(to: &operatorPages)
        }
        return router
    }

    /// The delivery list and the status page, behind `OperatorAuthentication`.
    func addOperatorRoutes(to router: inout RouterGroup) {
        router.get("/admin/v1/deliveries") { [self] request, _ in
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
            let page = AdminPage(snapshot: try await statusSnapshot()).html
            return HTTPResponse(status: .ok, headers: [
                "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
                "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
                "X-Content-Type-Options": "nosniff",
            ], body: Array(page.utf8))
        }
    }
}
