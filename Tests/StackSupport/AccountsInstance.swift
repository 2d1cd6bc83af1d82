public import AccountsService
import Foundation
public import MailwakeAppStore
import Synchronization
public import MailwakeCore
import MailwakeHTTPServer
import MailwakePostgres
public import TestSupport

/// An accounts service running in this process on a fresh database, plain
/// HTTP on a loopback port, with a trial so registered devices are entitled.
public final class AccountsInstance: Sendable {
    public static let serviceToken = "relay-service-token-for-tests"
    public static let operatorToken = "accounts-operator-token-for-tests"
    public static let origin = "https://accounts.test"

    public let app: AccountsApp
    public let url: String
    public let logs: MemoryLogSink
    public let databaseName: String
    private let server: HTTPServer
    private let stopped = Mutex(false)
    private let task: Task<Void, any Error>

    private init(app: AccountsApp, server: HTTPServer, task: Task<Void, any Error>, logs: MemoryLogSink, databaseName: String) {
        self.app = app
        self.server = server
        self.task = task
        self.logs = logs
        self.databaseName = databaseName
        url = "http://127.0.0.1:\(server.port)"
    }

    /// Starts accounts on its own database of `postgres`.
    public static func start(postgres: PostgresTestServer, trialDays: Int = 7,
                             appStore: AppStoreJWSVerifier.Configuration? = nil) async throws -> AccountsInstance {
        let name = try await StackDatabases.create(prefix: "accounts", on: postgres)
        let configuration = AccountsConfiguration(
            listenHost: "127.0.0.1", listenPort: 0, adminHost: "127.0.0.1", adminPort: 0, publicOrigin: origin,
            databaseURL: postgres.url(database: name), allowPlainHTTP: true, serviceTokens: [serviceToken], operatorToken: operatorToken,
            pushProductIDs: ["net.mailwake.push.monthly"], trialSeconds: Int64(trialDays) * 86400, appStore: appStore)
        let logs = MemoryLogSink()
        let logger = Logger(service: "accounts", level: .debug, sink: logs)
        var postgres = try PostgresClient.Configuration(url: configuration.databaseURL)
        postgres.checkoutTimeout = .seconds(60)  // a stalled CI machine must not fail a request that waits for a connection
        let database = PostgresClient(configuration: postgres, logger: logger)
        let app = AccountsApp(configuration: configuration, database: database, logger: logger, metrics: MetricsRegistry(),
                              clock: { Int64(Date().timeIntervalSince1970) })
        try await app.migrate()
        let server = app.servers()[0]
        try server.start()
        let task = Task { try await server.run() }
        return AccountsInstance(app: app, server: server, task: task, logs: logs, databaseName: name)
    }

    public func stop() async {
        guard stopped.withLock({ s in defer { s = true }; return !s }) else { return }
        task.cancel()
        _ = try? await task.value
        await app.database.close()
    }
}
