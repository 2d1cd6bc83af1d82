public import MailwakeCore
public import MailwakeHTTPServer
import MailwakeCrypto
import MailwakeHTTPTypes
import MailwakeMail
import MailwakeProtocol

/// The outpost's HTTPS API: the App reads message bodies and manages the
/// outpost through it. Every request but redeeming an invitation is signed
/// (PROTOCOL.md §8) by a device whose keys this outpost locked, and each
/// route needs its own permission: `content` for bodies, `manage` for the rest.
public struct OutpostAPI: Sendable {
    let store: OutpostStore
    let identity: OutpostIdentity
    let fetcher: MessageFetcher
    let gate: SignedRequestGate
    let sanitizer: HTMLSanitizer
    let clock: @Sendable () -> Int64
    /// Rung after mailboxes change, so the watchers pick the change up.
    let reconfigured: Doorbell?
    /// The origin requests are signed for (`PUBLIC_URL`).
    public let origin: String
    /// Body reads and refusals are counted here.
    let metrics: OutpostMetrics

    /// - Parameters:
    ///   - store: the outpost's store.
    ///   - identity: the outpost identity (signs and checks message references).
    ///   - fetcher: fetches messages from the mailboxes.
    ///   - origin: this API's public origin as configured.
    ///   - reconfigured: rung after mailbox changes (the mail watcher's).
    ///   - metrics: the outpost's metrics.
    public init(store: OutpostStore, identity: OutpostIdentity, fetcher: MessageFetcher, origin: String, reconfigured: Doorbell? = nil,
                metrics: OutpostMetrics = OutpostMetrics(), clock: @escaping @Sendable () -> Int64 = WallClock.seconds) {
        self.metrics = metrics
        self.reconfigured = reconfigured
        self.store = store
        self.identity = identity
        self.fetcher = fetcher
        self.origin = origin
        self.clock = clock
        gate = SignedRequestGate(origin: origin, nonces: OutpostNonceStore(database: store.database), clock: clock)
        sanitizer = HTMLSanitizer()
    }

    /// Headers every answer carries: nothing is cached, sniffed or referred.
    public static let responseHeaders: [(name: String, value: String)] = [
        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
        ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
    ]

    /// The routes.
    public func router() -> Router {
        var router = Router()
        router.add(middleware: RefusalCountingMiddleware(metrics: metrics))
        router.post("/v1/management/redeem") { request, _ in try await redeem(request) }
        router.group(middleware: requiring(.content)) { content in
            content.get("/v1/messages/body") { request, context in try await body(request, context) }
            content.get("/v1/messages/part") { request, context in try await part(request, context) }
        }
        addManagementRoutes(&router)
        return router
    }

    /// The listener settings for `listen` with `tls`; `perIPConnectionLimit` is `PER_IP_CONNECTION_LIMIT` (0: none).
    public static func listenerConfiguration(listen: ListenAddress, tls: OutpostTLS,
                                             perIPConnectionLimit: Int = 32) -> HTTPServer.Configuration {
        var c = HTTPServer.Configuration()
        c.name = "api"
        c.host = listen.host
        c.port = listen.port
        c.tls = .init(certificatePath: tls.certificatePath, privateKeyPath: tls.keyPath)
        c.maxBodyBytes = 256 * 1024
        c.connectionLimit = 256
        c.perIPConnectionLimit = perIPConnectionLimit
        c.requestDeadlineSeconds = 60
        c.metricsPrefix = "mailwake_outpost"
        c.responseHeaders = responseHeaders
        return c
    }

    /// The middleware that lets through devices holding `scope`.
    func requiring(_ scope: ManagementScope) -> [any HTTPMiddleware] {
        [DeviceAuthentication(gate: gate, store: store, scope: scope)]
    }
}
