public import MailwakeCore
import MailwakeHTTPTypes
import MailwakeProtocol

/// The admin listener's routes: `/metrics` (Prometheus text), `/healthz`
/// (the process answers) and `/readyz` (every dependency check passes).
public enum AdminRoutes {
    /// A named readiness check: true when the dependency is reachable.
    public typealias ReadinessCheck = @Sendable () async -> Bool

    /// Builds the admin router.
    ///
    /// - Parameters:
    ///   - metrics: the registry to expose.
    ///   - checks: readiness checks by name (`postgres`, `store`).
    ///   - refresh: run before each `/metrics` answer, to set gauges read from storage.
    public static func router(metrics: MetricsRegistry, checks: [String: ReadinessCheck] = [:],
                              refresh: (@Sendable () async -> Void)? = nil) -> Router {
        var router = Router()
        router.get("/metrics") { _, _ in
            await refresh?()
            return HTTPResponse(status: .ok,
                                headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
                         body: Array(metrics.render().utf8))
        }
        router.get("/healthz") { _, _ in
            .json(bytes: Array(#"{"status":"ok"}"#.utf8))
        }
        router.get("/readyz") { _, _ in
            var results: [(String, Bool)] = []
            for name in checks.keys.sorted() { results.append((name, await checks[name]!())) }
            let ready = results.allSatisfy(\.1)
            var w = JSONWriter()
            w.beginObject()
            w.string("status", ready ? "ready" : "not-ready")
            w.beginObject("checks")
            for (name, ok) in results { w.string(name, ok ? "ok" : "failing") }
            w.endObject()
            w.endObject()
            return .json(bytes: w.bytes, status: ready ? .ok : .serviceUnavailable)
        }
        return router
    }
}
