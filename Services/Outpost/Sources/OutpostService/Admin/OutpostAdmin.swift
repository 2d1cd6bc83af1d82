import Foundation
public import MailwakeCore
public import MailwakeHTTPServer

/// The outpost's admin listener (`ADMIN_LISTEN`): `/metrics`, `/healthz` and
/// `/readyz`, built like the relay's and accounts' (`AdminRoutes`, `AdminListener`).
public enum OutpostAdmin {
    /// The admin server.
    ///
    /// - Parameters:
    ///   - listen: where to listen; plain HTTP on loopback, HTTPS with `tls` elsewhere.
    ///   - tls: the outpost's certificate (the HTTPS API's: `TLS_CERT`/`TLS_KEY` or the self-signed one).
    ///   - metrics: the outpost's metrics.
    ///   - store: checked by `/readyz`; also sets the pending-deliveries gauge at each scrape.
    ///   - api: the HTTPS API listener, checked by `/readyz` (nil when `LISTEN` is empty).
    ///   - logger: the service logger.
    public static func server(listen: ListenAddress, tls: OutpostTLS?, metrics: OutpostMetrics, store: OutpostStore, api: HTTPServer?,
                              logger: Logger) -> HTTPServer {
        var checks: [String: AdminRoutes.ReadinessCheck] = [
            "store": { (try? await store.pendingCount()) != nil },
        ]
        if let api { checks["api"] = { api.port != 0 } }
        let router = AdminRoutes.router(metrics: metrics.registry, checks: checks, refresh: {
            if let pending = try? await store.pendingCount() { metrics.setPendingDeliveries(pending) }
            metrics.refreshCoverage(now: WallClock.fractionalSeconds())
        })
        let configuration = AdminListener.configuration(listen,
                                                        tls: tls.map { .init(certificatePath: $0.certificatePath,
                                                                             privateKeyPath: $0.keyPath) },
                                                        metricsPrefix: "mailwake_outpost")
        return HTTPServer(configuration: configuration, router: router, logger: logger, metrics: metrics.registry)
    }
}
