public import MailwakeCore
public import MailwakeHTTPServer
public import MailwakePostgres
import Foundation
public import MailwakeServiceSupport

/// One relay instance: its database, gates, clients, queue, routes, listeners
/// and background services.
public final class RelayApp: DatabaseBackedApp {
    public let configuration: RelayConfiguration
    public let database: PostgresClient
    public let metrics: MetricsRegistry
    let logger: Logger
    let gate: SignedRequestGate
    let operatorGate: BearerTokenGate?
    let accounts: AccountsClient
    let apns: APNsClient
    let queue: DeliveryQueue
    let handoff: DeliveryHandoff
    let consentSignals = ConsentSignals()
    let pairings: TTLCache<String, PairingRecord?>
    /// Precomputed verify tables for the busiest outpost keys.
    let outpostKeyTables: OutpostKeyTables
    let pairingLimiter: PairingLimiter
    let pairingStore: PairingStore
    let deliveryStatusStore: DeliveryStatusStore
    let deliveryStatsStore: DeliveryStatsStore
    let receiptStore: ReceiptStore
    let heartbeatStore: HeartbeatStore
    let catchUpStore: CatchUpStore
    let relayMetrics: RelayMetrics
    /// Unix seconds (injectable for tests; APNs tokens always use real time).
    let clock: @Sendable () -> Int64
    /// Unix milliseconds, consistent with `clock`.
    let clockMS: @Sendable () -> Int64

    /// - Parameters:
    ///   - configuration: the instance settings.
    ///   - database: the pool (not yet migrated).
    ///   - logger: the service logger.
    ///   - metrics: the service registry.
    ///   - clockMS: Unix milliseconds, injectable for tests.
    public init(configuration: RelayConfiguration, database: PostgresClient, logger: Logger, metrics: MetricsRegistry,
                clockMS: @escaping @Sendable () -> Int64 = WallClock.milliseconds) throws {
        if let problem = configuration.retentionProblem {
            throw ConfigurationError(key: "MAILWAKE_RELAY_" + RelaySettings.retention.name, reason: problem,
                                     shownValue: String(configuration.retention))
        }
        self.configuration = configuration
        self.database = database
        self.logger = logger
        self.metrics = metrics
        self.clockMS = clockMS
        clock = { clockMS() / 1000 }
        let clock = self.clock
        gate = SignedRequestGate(origin: configuration.publicOrigin, nonces: PostgresNonceStore(database: database), clock: clock)
        operatorGate = configuration.operatorToken.isEmpty ? nil : BearerTokenGate(tokens: [configuration.operatorToken],
                                                                                   realm: "mailwake-relay-operator")
        accounts = try AccountsClient(configuration: configuration.accounts, logger: logger, metrics: metrics)
        apns = try APNsClient(configuration: configuration.apns, logger: logger, metrics: metrics, database: database,
                              instance: configuration.instanceName)
        queue = DeliveryQueue(database: database, instance: configuration.instanceName, leaseSeconds: configuration.lease,
                              rate: configuration.rateLimit, burst: configuration.rateBurst,
                              keepCatchUp: configuration.catchupRetention > 0 && configuration.catchupLimit > 0)
        handoff = DeliveryHandoff(capacity: 2 * configuration.apns.maxInFlight)
        // An active pairing is kept as long as accounts answers are: the
        // durable write checks in the same statement that the pairing is
        // still active, so one ended at another instance is refused there
        // (410) and dropped from this cache. Everything else (pending,
        // consented, unknown) is kept briefly, so a confirmation at another
        // instance shows here within 2 s.
        let activeTTL = configuration.accounts.cacheTTL
        pairings = TTLCache { record in record?.state == .active ? activeTTL : .seconds(2) }
        pairingLimiter = PairingLimiter(database: database, perOutpost: configuration.pairingRateOutpost,
                                        perAddress: configuration.pairingRateAddress, clockMS: clockMS)
        relayMetrics = RelayMetrics(metrics)
        outpostKeyTables = OutpostKeyTables(configuration: .init(capacity: configuration.verifyTables,
                                                                 threshold: configuration.verifyTableThreshold),
                                            metrics: relayMetrics, clockMS: clockMS)
        pairingStore = PairingStore(database: database)
        deliveryStatusStore = DeliveryStatusStore(database: database)
        deliveryStatsStore = DeliveryStatsStore(database: database)
        receiptStore = ReceiptStore(database: database)
        heartbeatStore = HeartbeatStore(database: database)
        catchUpStore = CatchUpStore(database: database)
    }

    /// Applies the schema migrations (under an advisory lock: safe with several instances).
    @discardableResult
    public func migrate() async throws -> [Int64] {
        try await PostgresMigrator(RelayMigrations.all, logger: logger).migrate(database)
    }

    /// The public router: pairing, intake and status.
    public func router() -> Router {
        var router = Router()
        router.add(middleware: DatabaseUnavailableMiddleware())
        addPairingRoutes(to: &router)
        addIntakeRoutes(to: &router)
        addCatchUpRoutes(to: &router)
        addReceiptRoutes(to: &router)
        addHeartbeatRoutes(to: &router)
        return router
    }

    /// The public and admin listeners.
    public func servers() -> [HTTPServer] {
        var publicListener = HTTPServer.Configuration()
        publicListener.name = "public"
        publicListener.host = configuration.listen.host
        publicListener.port = configuration.listen.port
        publicListener.metricsPrefix = "mailwake_relay"
        publicListener.allowPlainHTTP = configuration.allowPlainHTTP
        // Envelopes are 8 KiB at most; consent long polls last up to 30 s.
        publicListener.maxBodyBytes = 64 * 1024
        publicListener.requestDeadlineSeconds = Double(Self.maxConsentWait + 15)
        publicListener.idleTimeoutSeconds = Self.maxConsentWait + 30
        publicListener.tls = configuration.tls
        publicListener.perIPConnectionLimit = configuration.perIPConnectionLimit
        publicListener.engine = configuration.httpEngine
        let adminListener = AdminListener.configuration(configuration.adminListen, tls: configuration.tls, metricsPrefix: "mailwake_relay")
        return [
            HTTPServer(configuration: publicListener, router: router(), logger: logger, metrics: metrics),
            HTTPServer(configuration: adminListener, router: adminRouter(), logger: logger, metrics: metrics),
        ]
    }

    /// The background services: delivery, the cross-instance wake-up,
    /// diagnostics to accounts, queue maintenance, the accounts check and
    /// (unless turned off) the outpost silence watch.
    public func backgroundServices() -> [any Service] {
        let listener = PostgresListener(configuration: database.configuration, logger: logger)
        let silenceWatch: [any Service] = configuration.silenceAlerts
            ? [SilenceWatch(database: database, configuration: configuration, logger: logger, clockMS: clockMS)] : []
        let sharedToken: [any Service] = apns.sharedToken.map { [$0] } ?? []
        return silenceWatch + sharedToken + [
            DeliveryWorker(queue: queue, apns: apns, accounts: accounts, handoff: handoff, configuration: configuration,
                           metrics: relayMetrics, logger: logger, clockMS: clockMS),
            listener,
            QueueWakeUp(listener: listener, handoff: handoff, logger: logger),
            DiagnosticsReporter(database: database, accounts: accounts, metrics: relayMetrics, logger: logger),
            QueueMaintenance(database: database, configuration: configuration, metrics: relayMetrics, logger: logger, clockMS: clockMS),
            AccountsReachability(accounts: accounts, interval: configuration.accounts.checkInterval, metrics: relayMetrics,
                                 logger: logger),
        ]
    }

    /// Everything `serve` runs: listeners, background services and the pool.
    public func services() -> [any Service] {
        servers() + backgroundServices() + [database]
    }

    /// How long start-up retries PostgreSQL.
    public var databaseStartTimeout: Duration { configuration.databaseStartTimeout }

    /// What the start-up log line says of this instance.
    public var startingLogFields: [String: LogValue] {
        ["instance": .string(configuration.instanceName), "origin": .string(configuration.publicOrigin)]
    }

    /// Stops the outbound clients (after the services ended).
    public func shutdownClients() {
        accounts.shutdown()
        apns.shutdown()
    }
}
