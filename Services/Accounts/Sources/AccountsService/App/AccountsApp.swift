public import MailwakeCore
public import MailwakeHTTPServer
public import MailwakePostgres
import MailwakeAppStore
public import MailwakeServiceSupport

/// One accounts instance: its database, gates, routes and listeners.
public final class AccountsApp: DatabaseBackedApp {
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
    /// Devices asked about in the relay's authorization look-ups (each of a batch counts).
    let authorizationDevices: Counter
    let deviceStore: DeviceStore
    let sessionStore: DeviceSessionStore
    let liveActivityTokenStore: LiveActivityTokenStore
    let entitlementStore: EntitlementStore
    let diagnosticsStore: DiagnosticsStore
    let purchaseStore: PurchaseStore
    let outpostStore: OutpostStore
    let blockStore: BlockStore
    /// Guards every route a registered device calls.
    let deviceAuthentication: [any HTTPMiddleware]

    /// - Parameters:
    ///   - configuration: the instance settings.
    ///   - database: the pool (not yet migrated).
    ///   - logger: the service logger.
    ///   - metrics: the service registry.
    ///   - clock: Unix seconds (default: the wall clock), injectable for tests.
    public init(configuration: AccountsConfiguration, database: PostgresClient, logger: Logger, metrics: MetricsRegistry,
                clock: @escaping @Sendable () -> Int64 = WallClock.seconds) {
        self.configuration = configuration
        self.database = database
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        authorizationDevices = metrics.counter("mailwake_accounts_authorization_devices_total",
                                               help: "Devices the relay asked about in authorization look-ups (every device of a batch " +
                                                     "counts).")
        nonces = PostgresNonceStore(database: database)
        gate = SignedRequestGate(origin: configuration.publicOrigin, nonces: nonces, clock: clock)
        serviceGate = BearerTokenGate(tokens: configuration.serviceTokens, realm: "mailwake-accounts-internal")
        operatorGate = configuration.operatorToken.isEmpty ? nil : BearerTokenGate(tokens: [configuration.operatorToken],
                                                                                   realm: "mailwake-accounts-operator")
        deviceStore = DeviceStore(database: database)
        sessionStore = DeviceSessionStore(database: database)
        liveActivityTokenStore = LiveActivityTokenStore(database: database)
        entitlementStore = EntitlementStore(database: database)
        diagnosticsStore = DiagnosticsStore(database: database)
        purchaseStore = PurchaseStore(database: database)
        outpostStore = OutpostStore(database: database)
        blockStore = BlockStore(database: database)
        deviceAuthentication = [DeviceSessionAuthentication(gate: gate, devices: deviceStore, sessions: sessionStore, clock: clock)]
        appStore = configuration.appStore.map { c in
            Result { () throws(AppStoreVerificationError) in try AppStoreJWSVerifier(configuration: c) }
        }
    }

    /// Applies the schema migrations (under an advisory lock: safe with several instances).
    @discardableResult
    public func migrate() async throws -> [Int64] {
        try await PostgresMigrator(AccountsMigrations.all, logger: logger).migrate(database)
    }

    /// Every route: device, outpost, purchase, internal and operator APIs.
    public func router() -> Router {
        var router = publicRouter()
        addInternalRoutes(to: &router)
        addOperatorRoutes(to: &router)
        return router
    }

    /// The device, outpost and purchase APIs (the public listener's when `INTERNAL_LISTEN` is set).
    public func publicRouter() -> Router {
        var router = Router()
        router.add(middleware: DatabaseUnavailableMiddleware())
        addDeviceRoutes(to: &router)
        addOutpostRoutes(to: &router)
        addPurchaseRoutes(to: &router)
        return router
    }

    /// The internal and operator APIs (the internal listener's when `INTERNAL_LISTEN` is set).
    public func internalRouter() -> Router {
        var router = Router()
        router.add(middleware: DatabaseUnavailableMiddleware())
        addInternalRoutes(to: &router)
        addOperatorRoutes(to: &router)
        return router
    }

    /// The public and admin listeners, and the internal one when `INTERNAL_LISTEN` is set, ready for a `ServiceGroup`.
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
        let admin = AdminRoutes.router(metrics: metrics, checks: ["postgres": { await database.isReachable() }])
        guard let internalAddress = configuration.internalListen else {
            return [
                HTTPServer(configuration: publicListener, router: router(), logger: logger, metrics: metrics),
                HTTPServer(configuration: adminListener, router: admin, logger: logger, metrics: metrics),
            ]
        }
        // Plain HTTP on loopback, the service's certificate elsewhere (checked at start), as the admin listener.
        var internalListener = AdminListener.configuration(internalAddress, tls: configuration.tls, metricsPrefix: "mailwake_accounts")
        internalListener.name = "internal"
        return [
            HTTPServer(configuration: publicListener, router: publicRouter(), logger: logger, metrics: metrics),
            HTTPServer(configuration: adminListener, router: admin, logger: logger, metrics: metrics),
            HTTPServer(configuration: internalListener, router: internalRouter(), logger: logger, metrics: metrics),
        ]
    }

    /// How long start-up retries PostgreSQL.
    public var databaseStartTimeout: Duration { configuration.databaseStartTimeout }

    /// Everything `serve` runs: the listeners and the pool.
    public func services() -> [any Service] { servers() + [database] }
}
