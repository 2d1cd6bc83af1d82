import Foundation
import Synchronization
public import MailwakeCore
import MailwakeHTTPServer
import MailwakePostgres
public import RelayService
public import TestSupport

/// A relay running in this process: its listeners and background services,
/// plain HTTP on loopback ports, delivering to the APNs simulator.
public final class RelayInstance: Sendable {
    public static let origin = "https://relay.test"
    public static let operatorToken = "relay-operator-token-for-tests"
    public static let bundleID = "net.mailwake.app"

    public let app: RelayApp
    public let url: String
    public let adminURL: String
    public let logs: MemoryLogSink
    private let stopped = Mutex(false)
    private let task: Task<Void, Never>

    private init(app: RelayApp, servers: [HTTPServer], task: Task<Void, Never>, logs: MemoryLogSink) {
        self.app = app
        self.task = task
        self.logs = logs
        url = "http://127.0.0.1:\(servers[0].port)"
        adminURL = "http://127.0.0.1:\(servers[1].port)"
    }

    /// The configuration a test relay starts from.
    public static func configuration(databaseURL: String, accounts: AccountsInstance, simulator: APNsSimulatorProcess,
                                     instanceName: String = "relay-test") -> RelayConfiguration {
        RelayConfiguration(
            listen: .init(host: "127.0.0.1", port: 0), adminListen: .init(host: "127.0.0.1", port: 0),
            publicOrigin: origin, databaseURL: databaseURL, allowPlainHTTP: true,
            accounts: .init(url: accounts.url, token: AccountsInstance.serviceToken, cacheTTL: .seconds(30)),
            apns: .init(keyFile: simulator.keyFile, keyID: simulator.keyID, teamID: simulator.teamID, bundleID: bundleID,
                        productionURL: simulator.url, sandboxURL: simulator.url, caFile: simulator.caFile, connections: 2,
                        maxInFlight: 1000),
            operatorToken: operatorToken, rateLimit: 1000, rateBurst: 10000, lease: 10, instanceName: instanceName, logLevel: .debug)
    }

    /// Starts a relay (migrating its database first).
    ///
    /// - Parameters:
    ///   - configuration: from `configuration(...)`, adjusted by the test.
    ///   - clockMS: the relay's clock (real time unless a test moves it).
    public static func start(_ configuration: RelayConfiguration, clockMS: (@Sendable () -> Int64)? = nil) async throws -> RelayInstance {
        let logs = MemoryLogSink()
        let logger = Logger(service: "relay", level: configuration.logLevel, sink: logs)
        let metrics = MetricsRegistry()
        var postgres = try configuration.postgresConfiguration()
        postgres.checkoutTimeout = .seconds(60)  // a stalled CI machine must not fail a request that waits for a connection
        let database = PostgresClient(configuration: postgres, logger: logger, metrics: metrics, metricsPrefix: "mailwake_relay_postgres")
        let app = try RelayApp(configuration: configuration, database: database, logger: logger, metrics: metrics,
                               clockMS: clockMS ?? WallClock.milliseconds)
        try await app.migrate()
        let servers = app.servers()
        for server in servers { try server.start() }
        let services: [any Service] = servers + app.backgroundServices()
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for service in services { group.addTask { try? await service.run() } }
            }
        }
        return RelayInstance(app: app, servers: servers, task: task, logs: logs)
    }

    /// Stops the services (draining what is in flight), then the clients and the pool.
    public func stop() async {
        guard stopped.withLock({ s in defer { s = true }; return !s }) else { return }
        task.cancel()
        await task.value
        app.shutdownClients()
        await app.database.close()
    }
}
