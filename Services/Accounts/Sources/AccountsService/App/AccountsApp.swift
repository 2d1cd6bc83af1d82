public import MailwakeCore
public import MailwakeHTTPServer
public import MailwakePostgres
import MailwakeAppStore
import MailwakeServiceSupport

/// One accounts instance: its database, gates, routes and listeners.
public final class AccountsApp: Sendable {
    public let configuration: AccountsConfiguration
    public let database: PostgresClient
    public let metrics: MetricsRegistry
    let logger: Logger
    let gate: SignedRequestGate
    let serviceGate: BearerTokenGate
    let operatorGate: BearerTokenGate?
    let nonces: PostgresNonceStore
    /// Built once: parsing the trusted roots into an X509 store is start-up work.
    let appStore: Result<AppStoreJWSVerifier, AppStoreVerificationError>?
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - configuration: the instance settings.
    ///   - database: the pool (not yet migrated).
    ///   - logger: the service logger.
    ///   - metrics: the service registry.
    ///   - clock: Unix seconds, injectable for tests.
    public init(configuration: AccountsConfiguration, database: PostgresClient, logger: Logger, metrics: MetricsRegistry,
                clock: @escaping @Sendable () -> Int64) {
        self.configuration = configuration
        self.database = database
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        nonces = PostgresNonceStore(database: database)
        gate = SignedRequestGate(origin: configuration.publicOrigin, nonces: nonces, clock: clock)
        serviceGate = BearerTokenGate(tokens: configuration.serviceTokens, realm: "mailwake-accounts-internal")
        operatorGate = configuration.operatorToken.isEmpty ? nil : BearerTokenGate(tokens: [configuration.operatorToken], realm: "mailwake-accounts-operator")
        appStore = configuration.appStore.map { c in Result { () throws(AppStoreVerificationError) in try AppStoreJWSVerifier(configuration: c) } }
    }

    /// Applies the schema migrations (under an advisory lock: safe with several instances).
    @discardableResult
    public func migrate() async throws -> [Int64] {
        try await PostgresMigrator(AccountsMigrations.all, logger: logger).migrate(database)
    }

    /// The public router: device, outpost, internal and operator APIs.
    public func router() -> Router {
        var router = Router()
        router.add(middleware: DatabaseUnavailableMiddleware())
        addDeviceRoutes(to: &router)
        addOutpostRoutes(to: &router)
        addInternalRoutes(to: &router)
        addOperatorRoutes(to: &router)
        addPurchaseRoutes(to: &router)
        return router
    }

    /// The public and admin listeners, ready for a `ServiceGroup`.
    public func servers() -> [HTTPServer] {
        var publicListener = HTTPServer.Configuration()
        publicListener.name = "public"
        publicListener.host = configuration.listenHost
        publicListener.port = configuration.listenPort
        publicListener.metricsPrefix = "mailwake_accounts"
        publicListener.allowPlainHTTP = configuration.allowPlainHTTP
        publicListener.tls = configuration.tls
        publicListener.perIPConnectionLimit = configuration.perIPConnectionLimit
        let adminListener = AdminListener.configuration(ListenAddress(host: configuration.adminHost, port: configuration.adminPort),
                                                        tls: configuration.tls, metricsPrefix: "mailwake_accounts")
        let database = self.database
        let admin = AdminRoutes.router(metrics: metrics, checks: ["postgres": {
            (try? await database.query("SELECT 1")) != nil
        }])
        return [
            HTTPServer(configuration: publicListener, router: router(), logger: logger, metrics: metrics),
            HTTPServer(configuration: adminListener, router: admin, logger: logger, metrics: metrics),
        ]
    }
}
