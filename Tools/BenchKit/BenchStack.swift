public import AccountsService
public import Foundation
import MailwakeCore
import MailwakeCrypto
public import MailwakeHTTPClient
public import MailwakeHTTPServer
public import MailwakePostgres

/// One `mailwake-relay serve` process with scratch databases, the APNs
/// simulator, and accounts in this process: what the relay benchmarks run against.
// @unchecked Sendable: the stored properties are set once in `start` and only read afterwards.
public final class BenchStack: @unchecked Sendable {
    public static let origin = "https://relay.bench"
    public static let bundleID = "net.mailwake.app"
    static let serviceToken = "bench-service-token-0123456789abcdef"

    public let work: URL, admin: PostgresClient, databases: [String], relayDatabaseURL: String
    public let simulator: BenchProcess, simulatorURL: String, simulatorClient: HTTPClient
    public let accounts: AccountsApp, accountsPool: PostgresClient, accountsServer: HTTPServer
    public let relay: BenchProcess, relayURL: String, client: HTTPClient
    /// The relay's admin listener (plain HTTP: `/metrics`, `/healthz`).
    public let relayAdminURL: String
    /// Where the processes run (for a report): the relay's CPUs and the others', or that all share every CPU.
    public let cpuPlacement: [String: Any]
    /// PostgreSQL's server, when `start` moved it off the relay's CPUs: put back by `tearDown`.
    private let postgresPlacement: CPUPlacement.PostgresPlacement?

    private init(work: URL, admin: PostgresClient, databases: [String], relayDatabaseURL: String, simulator: BenchProcess,
                 simulatorURL: String,
                 accounts: AccountsApp, accountsPool: PostgresClient, accountsServer: HTTPServer, relay: BenchProcess, relayURL: String,
                 relayAdminURL: String, client: HTTPClient, simulatorClient: HTTPClient,
                 placement: (postgres: CPUPlacement.PostgresPlacement?, report: [String: Any])) {
        (self.work, self.admin, self.databases, self.relayDatabaseURL) = (work, admin, databases, relayDatabaseURL)
        (self.simulator, self.simulatorURL, self.simulatorClient) = (simulator, simulatorURL, simulatorClient)
        (self.accounts, self.accountsPool, self.accountsServer) = (accounts, accountsPool, accountsServer)
        (self.relay, self.relayURL, self.relayAdminURL, self.client) = (relay, relayURL, relayAdminURL, client)
        (postgresPlacement, cpuPlacement) = placement
    }

    /// Starts everything; `name` prefixes the scratch databases and directory,
    /// `settings` are added to (or replace) the relay's `MAILWAKE_RELAY_*` settings,
    /// `placement` (when given) starts the relay alone on its CPUs and everything else (this process, the simulator, a
    /// PostgreSQL server of this machine) on the others.
    public static func start(postgresURL: String, name: String, keepDeliveries: Int, connections: Int,
                             settings extra: [String: String] = [:], placement: CPUPlacement? = nil) async throws -> BenchStack {
        let bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        // Checked before anything starts: BenchProcess would find one missing only after databases and processes exist.
        let relayPath = bin.appendingPathComponent("mailwake-relay").path
        let simulatorPath = bin.appendingPathComponent("mailwake-apns-simulator").path
        for tool in [relayPath, simulatorPath] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw BenchError("\(tool) is missing: build it with `swift build -c release`")
        }
        // Before anything starts, so that the simulator and every thread of this process inherit the other CPUs.
        if let placement { try await OwnThread.run { try placement.placeThisProcess() } }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let path = { (name: String) in work.appendingPathComponent(name).path }
        // Blocking waits (openssl, the simulator's first line, stopping) go to threads of their own, never the pool's.
        let certificateArguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                                    path("tls.key"), "-out", path("tls.pem"),
                                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
        try await OwnThread.run { try BenchSystem.openssl(certificateArguments) }
        let apnsKey = try P256.Signing.PrivateKey()
        _ = FileManager.default.createFile(atPath: path("AuthKey.p8"), contents: Data(apnsKey.pemRepresentation.utf8),
                                           attributes: [.posixPermissions: 0o600])

        // Scratch databases.
        let admin = PostgresClient(configuration: try .init(url: postgresURL), logger: .disabled)
        let prefix = name.replacingOccurrences(of: "-", with: "_")
        let accountsDB = "\(prefix)_accounts_\(getpid())", relayDB = "\(prefix)_relay_\(getpid())"
        for db in [accountsDB, relayDB] { try await admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(db)")) }
        func url(_ db: String) -> String {
            var c = URLComponents(string: postgresURL)!
            c.path = "/" + db
            return c.string!
        }

        // The APNs simulator.
        let simulator = try BenchProcess(executable: simulatorPath, arguments: [
            "serve", "--listen", "127.0.0.1:0", "--tls-cert", path("tls.pem"), "--tls-key", path("tls.key"), "--key-file",
            path("AuthKey.p8"),
            "--key-id", "BENCHKEY01", "--team-id", "BENCHTEAM1", "--topic", bundleID, "--keep-deliveries", String(keepDeliveries),
            "--log-level", "warning",
        ], logPath: path("simulator.log"))
        let line = await OwnThread.run { simulator.firstLine() }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let simPort = object["port"] as? Int else {
            await OwnThread.run { simulator.stop() }
            await dropDatabases([accountsDB, relayDB], admin: admin)
            throw BenchError("the simulator did not start: \(line)")
        }
        let simulatorURL = "https://127.0.0.1:\(simPort)"

        // Accounts, in this process, plain HTTP on loopback.
        let accountsPort = try BenchSystem.freePort()
        let accountsConfig = AccountsConfiguration(listenHost: "127.0.0.1", listenPort: accountsPort, adminHost: "127.0.0.1", adminPort: 0,
                                                   publicOrigin: "https://accounts.bench", databaseURL: url(accountsDB),
                                                   allowPlainHTTP: true,
                                                   serviceTokens: [serviceToken], trialSeconds: 30 * 86400)
        let accountsPool = PostgresClient(configuration: try .init(url: url(accountsDB)), logger: .disabled)
        let accounts = AccountsApp(configuration: accountsConfig, database: accountsPool,
                                   logger: Logger(service: "accounts", level: .warning),
                                   metrics: MetricsRegistry())
        try await accounts.migrate()
        let accountsServer = accounts.servers()[0]
        try accountsServer.start()

        // The relay process.
        let relayPort = try BenchSystem.freePort(), relayAdmin = try BenchSystem.freePort()
        var settings = [
            "LISTEN": "127.0.0.1:\(relayPort)", "ADMIN_LISTEN": "127.0.0.1:\(relayAdmin)", "PUBLIC_ORIGIN": origin,
            "DATABASE_URL": url(relayDB),
            "TLS_CERT": path("tls.pem"), "TLS_KEY": path("tls.key"), "ACCOUNTS_URL": "http://127.0.0.1:\(accountsPort)",
            "ACCOUNTS_TOKEN": serviceToken,
            "APNS_KEY_FILE": path("AuthKey.p8"), "APNS_KEY_ID": "BENCHKEY01", "APNS_TEAM_ID": "BENCHTEAM1", "APNS_BUNDLE_ID": bundleID,
            "APNS_PRODUCTION_URL": simulatorURL, "APNS_SANDBOX_URL": simulatorURL, "APNS_CA_FILE": path("tls.pem"),
            "RATE_LIMIT": "1000000", "RATE_BURST": "1000000", "PAIRING_RATE_OUTPOST": "0", "PAIRING_RATE_ADDRESS": "0",
            // Every simulated outpost connects from 127.0.0.1: the per-address limit would refuse them past 128.
            "PER_IP_CONNECTION_LIMIT": "0",
            "LOG_LEVEL": "warning",
        ]
        settings.merge(extra) { _, new in new }
        let config = settings.keys.sorted().map { "MAILWAKE_RELAY_\($0)=\(settings[$0]!)" }.joined(separator: "\n") + "\n"
        _ = FileManager.default.createFile(atPath: path("relay.env"), contents: Data(config.utf8), attributes: [.posixPermissions: 0o600])
        let relayArguments = ["serve", "--config", path("relay.env")]
        let launch = placement?.relayLaunch(relayPath, relayArguments) ?? (executable: relayPath, arguments: relayArguments)
        let relay = try BenchProcess(executable: launch.executable, arguments: launch.arguments, logPath: path("relay.log"))
        var c = HTTPClient.Configuration()
        c.caFile = path("tls.pem")
        c.httpVersion = .http1_1
        c.maxConnectionsPerHost = max(connections, 64)
        c.totalTimeout = .seconds(30)
        let client = try HTTPClient(configuration: c)
        var s = HTTPClient.Configuration()
        s.caFile = path("tls.pem")
        s.maxResponseBytes = 512 << 20
        let simulatorClient = try HTTPClient(configuration: s)
        let relayURL = "https://127.0.0.1:\(relayPort)", relayAdminURL = "http://127.0.0.1:\(relayAdmin)"
        var up = false
        for _ in 0..<300 where !up {
            up = (try? await client.execute(.init(url: relayAdminURL + "/healthz")))?.status == .ok
            if !up { try await Task.sleep(for: .milliseconds(100)) }
        }
        var placed: (postgres: CPUPlacement.PostgresPlacement?, report: [String: Any]) = (nil, ["relay": "shares every CPU with the rest"])
        if up, let placement { placed = await placePostgres(placement, admin: admin) }
        let stack = BenchStack(work: work, admin: admin, databases: [accountsDB, relayDB], relayDatabaseURL: url(relayDB),
                               simulator: simulator, simulatorURL: simulatorURL, accounts: accounts, accountsPool: accountsPool,
                               accountsServer: accountsServer, relay: relay, relayURL: relayURL, relayAdminURL: relayAdminURL,
                               client: client, simulatorClient: simulatorClient, placement: placed)
        guard up else {
            // Everything stops; the scratch directory stays for the relay's log.
            await stack.tearDown(keepingScratch: true)
            throw BenchError("the relay did not start: see \(path("relay.log"))")
        }
        return stack
    }

    /// Stops the processes and servers and drops the scratch databases; removes the scratch directory unless
    /// `keepingScratch` (its logs say why a start failed).
    public func tearDown(keepingScratch: Bool = false) async {
        let relay = self.relay, simulator = self.simulator
        await OwnThread.run {
            relay.stop()
            simulator.stop()
        }
        client.shutdown()
        simulatorClient.shutdown()
        await accountsServer.shutdown()
        await accounts.database.close()
        await Self.dropDatabases(databases, admin: admin)
        postgresPlacement?.restore()
        if !keepingScratch { try? FileManager.default.removeItem(at: work) }
    }

    /// Moves a PostgreSQL server of this machine off the relay's CPUs; says where everything runs. A server that is
    /// elsewhere, or may not be moved, stays where it is (the report and stderr say so).
    private static func placePostgres(_ placement: CPUPlacement, admin: PostgresClient)
        async -> (postgres: CPUPlacement.PostgresPlacement?, report: [String: Any]) {
        var report: [String: Any] = ["relay": placement.relayList, "this_process_and_simulator": placement.othersList]
        do {
            let (pid, port) = try await admin.query("SELECT pg_backend_pid(), inet_client_port()").single().decode((Int32, Int32?).self)
            let placed = try await OwnThread.run { try placement.placePostgres(backendPID: pid, clientPort: port) }
            report["postgres"] = placement.othersList
            return (placed, report)
        } catch {
            report["postgres"] = "not moved: \(error)"
            BenchSystem.progress("PostgreSQL stays on every CPU (\(error))")
            return (nil, report)
        }
    }

    /// Drops the scratch databases `names` and closes `admin`.
    private static func dropDatabases(_ names: [String], admin: PostgresClient) async {
        for db in names { _ = try? await admin.execute(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(db) WITH (FORCE)")) }
        await admin.close()
    }

    /// The PEM file the relay's and the simulator's certificates chain to (they share one).
    public var caFile: String { work.appendingPathComponent("tls.pem").path }
}
