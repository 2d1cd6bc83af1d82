import AccountsService
import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPServer
import MailwakePostgres
import MailwakeProtocol
import MailwakeHTTPTypes
import Synchronization

/// The benchmark's running parts and its two phases.
// @unchecked Sendable: the stored properties are set once in `prepare` and only read afterwards.
final class RelayBench: @unchecked Sendable {
    static let origin = "https://relay.bench"
    static let bundleID = "net.mailwake.app"
    static let serviceToken = "bench-service-token-0123456789abcdef"

    let options: BenchOptions
    let work: URL
    let admin: PostgresClient
    let databases: [String]
    let simulator: BenchProcess
    let simulatorURL: String
    let accounts: AccountsApp
    let accountsServer: HTTPServer
    let relay: BenchProcess
    let relayURL: String
    let client: HTTPClient
    let simulatorClient: HTTPClient
    let pairings: [BenchPairing]

    private init(options: BenchOptions, work: URL, admin: PostgresClient, databases: [String], simulator: BenchProcess, simulatorURL: String,
                 accounts: AccountsApp, accountsServer: HTTPServer, relay: BenchProcess, relayURL: String, client: HTTPClient,
                 simulatorClient: HTTPClient, pairings: [BenchPairing]) {
        self.options = options
        self.work = work
        self.admin = admin
        self.databases = databases
        self.simulator = simulator
        self.simulatorURL = simulatorURL
        self.accounts = accounts
        self.accountsServer = accountsServer
        self.relay = relay
        self.relayURL = relayURL
        self.client = client
        self.simulatorClient = simulatorClient
        self.pairings = pairings
    }

    static func prepare(_ options: BenchOptions) async throws -> RelayBench {
        let bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-relay-bench-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let path = { (name: String) in work.appendingPathComponent(name).path }
        // Blocking waits (openssl, the simulator's first line, stopping) go to threads of their own, never the pool's.
        let certificateArguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("tls.key"), "-out", path("tls.pem"),
                                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
        try await OwnThread.run { try openssl(certificateArguments) }
        let apnsKey = try P256.Signing.PrivateKey()
        _ = FileManager.default.createFile(atPath: path("AuthKey.p8"), contents: Data(apnsKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])

        // Scratch databases.
        let admin = PostgresClient(configuration: try .init(url: options.postgresURL), logger: .disabled)
        let accountsDB = "relay_bench_accounts_\(getpid())", relayDB = "relay_bench_relay_\(getpid())"
        for db in [accountsDB, relayDB] { try await admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(db)")) }
        func url(_ db: String) -> String {
            var c = URLComponents(string: options.postgresURL)!
            c.path = "/" + db
            return c.string!
        }

        // The APNs simulator.
        let simulator = try BenchProcess(executable: bin.appendingPathComponent("mailwake-apns-simulator").path, arguments: [
            "serve", "--listen", "127.0.0.1:0", "--tls-cert", path("tls.pem"), "--tls-key", path("tls.key"), "--key-file", path("AuthKey.p8"),
            "--key-id", "BENCHKEY01", "--team-id", "BENCHTEAM1", "--topic", bundleID, "--keep-deliveries", String(max(200_000, 2 * (500 + Int(Double(options.rate) * options.seconds) + options.saturation))),
            "--log-level", "warning",
        ], logPath: path("simulator.log"))
        let line = await OwnThread.run { simulator.firstLine() }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let simPort = object["port"] as? Int else {
            throw BenchError("the simulator did not start: \(line)")
        }
        let simulatorURL = "https://127.0.0.1:\(simPort)"

        // Accounts, in this process, plain HTTP on loopback.
        let accountsPort = try freePort()
        let accountsConfig = AccountsConfiguration(listenHost: "127.0.0.1", listenPort: accountsPort, adminHost: "127.0.0.1", adminPort: 0,
                                                   publicOrigin: "https://accounts.bench", databaseURL: url(accountsDB), allowPlainHTTP: true,
                                                   serviceTokens: [serviceToken], trialSeconds: 30 * 86400)
        let accountsPool = PostgresClient(configuration: try .init(url: url(accountsDB)), logger: .disabled)
        let accounts = AccountsApp(configuration: accountsConfig, database: accountsPool, logger: Logger(service: "accounts", level: .warning),
                                   metrics: MetricsRegistry(), clock: { Int64(Date().timeIntervalSince1970) })
        try await accounts.migrate()
        let accountsServer = accounts.servers()[0]
        try accountsServer.start()

        // The relay process.
        let relayPort = try freePort(), relayAdmin = try freePort()
        let settings = [
            "LISTEN": "127.0.0.1:\(relayPort)", "ADMIN_LISTEN": "127.0.0.1:\(relayAdmin)", "PUBLIC_ORIGIN": origin, "DATABASE_URL": url(relayDB),
            "TLS_CERT": path("tls.pem"), "TLS_KEY": path("tls.key"), "ACCOUNTS_URL": "http://127.0.0.1:\(accountsPort)", "ACCOUNTS_TOKEN": serviceToken,
            "APNS_KEY_FILE": path("AuthKey.p8"), "APNS_KEY_ID": "BENCHKEY01", "APNS_TEAM_ID": "BENCHTEAM1", "APNS_BUNDLE_ID": bundleID,
            "APNS_PRODUCTION_URL": simulatorURL, "APNS_SANDBOX_URL": simulatorURL, "APNS_CA_FILE": path("tls.pem"),
            "RATE_LIMIT": "1000000", "RATE_BURST": "1000000", "PAIRING_RATE_OUTPOST": "0", "PAIRING_RATE_ADDRESS": "0", "LOG_LEVEL": "warning",
        ]
        let config = settings.keys.sorted().map { "MAILWAKE_RELAY_\($0)=\(settings[$0]!)" }.joined(separator: "\n") + "\n"
        _ = FileManager.default.createFile(atPath: path("relay.env"), contents: Data(config.utf8), attributes: [.posixPermissions: 0o600])
        let relay = try BenchProcess(executable: bin.appendingPathComponent("mailwake-relay").path, arguments: ["serve", "--config", path("relay.env")],
                                     logPath: path("relay.log"))
        var c = HTTPClient.Configuration()
        c.caFile = path("tls.pem")
        c.httpVersion = .http1_1
        c.maxConnectionsPerHost = max(options.concurrency, 64)
        c.totalTimeout = .seconds(30)
        let client = try HTTPClient(configuration: c)
        var s = HTTPClient.Configuration()
        s.caFile = path("tls.pem")
        s.maxResponseBytes = 512 << 20
        let simulatorClient = try HTTPClient(configuration: s)
        let relayURL = "https://127.0.0.1:\(relayPort)"
        var up = false
        for _ in 0..<300 where !up {
            up = (try? await client.execute(.init(url: "http://127.0.0.1:\(relayAdmin)/healthz")))?.status == .ok
            if !up { try await Task.sleep(for: .milliseconds(100)) }
        }
        guard up else { throw BenchError("the relay did not start: see \(path("relay.log"))") }

        // Devices registered at accounts, each paired with one outpost through the relay.
        var pairings: [BenchPairing] = []
        for _ in 0..<options.outposts {
            let outpost = try P256.Signing.PrivateKey()
            for _ in 0..<options.devicesPerOutpost {
                pairings.append(try await BenchPairing.make(outpost: outpost, accountsPool: accountsPool, relayURL: relayURL, client: client))
            }
        }
        return RelayBench(options: options, work: work, admin: admin, databases: [accountsDB, relayDB], simulator: simulator, simulatorURL: simulatorURL,
                          accounts: accounts, accountsServer: accountsServer, relay: relay, relayURL: relayURL, client: client,
                          simulatorClient: simulatorClient, pairings: pairings)
    }

    func run() async throws -> [String: Any] {
        let verifyMicros = Self.ecdsaVerifyMicros()
        // Warm-up: connections, prepared statements, caches.
        _ = try await submit(makeEnvelopes(500), concurrency: 16)
        _ = try await waitForSimulator(total: 500, timeout: 60)

        let fixedCount = Int(Double(options.rate) * options.seconds)
        let fixedEnvelopes = try makeEnvelopes(fixedCount)
        Self.progress("fixed-rate phase begins")
        let fixed = try await fixedRatePhase(fixedEnvelopes, seen: 500)
        let fixedFailed = (fixed["failed_submissions"] as? [String: Int])?.values.reduce(0, +) ?? 0
        let saturationEnvelopes = try makeEnvelopes(options.saturation)
        Self.progress("saturation phase begins")
        let saturation = try await saturationPhase(saturationEnvelopes, seen: 500 + fixedCount - fixedFailed, verifyMicros: verifyMicros)
        Self.progress("done")
        return [
            "benchmark": "mailwake-relay-bench",
            "setup": "one mailwake-relay serve process (TLS, HTTP/1.1 keep-alive), PostgreSQL, the APNs simulator (HTTP/2 + TLS), accounts, and this client on one machine",
            "machine_cores": ProcessInfo.processInfo.activeProcessorCount,
            "outposts": options.outposts, "devices_per_outpost": options.devicesPerOutpost,
            "ecdsa_p256_verify_us": round1(verifyMicros),
            "fixed_rate": fixed, "saturation": saturation,
            "target": "≥ 8,000/s sustained; p99 accept → APNs < 50 ms at 2,000/s (DESIGN.md §6)",
        ]
    }

    /// Says on stderr where the run is, so a profiler can be attached to one phase.
    static func progress(_ what: String) {
        FileHandle.standardError.write(Data("mailwake-relay-bench: \(what)\n".utf8))
    }

    /// Envelopes round-robin over the pairings, sealed before any timing starts.
    func makeEnvelopes(_ count: Int) throws -> [Envelope] {
        try (0..<count).map { i in try pairings[i % pairings.count].envelope() }
    }

    /// Submits `envelopes` from `concurrency` connections as fast as they are answered; returns submit times by event id.
    func submit(_ envelopes: [Envelope], concurrency: Int) async throws -> [String: Double] {
        let next = Locked(0)
        let times = Locked([String: Double]())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask { [self] in
                    while true {
                        let i = next.withLock { n -> Int in defer { n += 1 }; return n }
                        guard i < envelopes.count else { return }
                        let sentAt = Self.nowMS()
                        try await post(envelopes[i])
                        times.withLock { $0[envelopes[i].context.eventID] = sentAt }
                    }
                }
            }
            try await group.waitForAll()
        }
        return times.withLock { $0 }
    }

    func post(_ envelope: Envelope) async throws {
        let r = try await client.execute(.init(method: .post, url: relayURL + "/v1/envelopes", headers: ["Content-Type": "application/json"],
                                               body: envelope.jsonBytes))
        guard r.status == .accepted else { throw BenchError("an envelope was answered \(r.status.code): \(r.text)") }
    }

    /// Open loop at `options.rate` a second.
    func fixedRatePhase(_ envelopes: [Envelope], seen: Int) async throws -> [String: Any] {
        let cpuBefore = relay.cpuSeconds
        let start = ContinuousClock.now
        let interval = Duration.seconds(1) / options.rate
        let sendTimes = Locked([String: Double]())
        let answerTimes = Locked([String: Double]())
        let intake = Locked([Double]())
        // Open loop: a rate the machine cannot carry shows as failed
        // submissions (answers that never came in time), not as an abort.
        let failures = Locked([String: Int]())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, envelope) in envelopes.enumerated() {
                try await Task.sleep(until: start + interval * i, clock: .continuous)
                group.addTask { [self] in
                    let t0 = Self.nowMS()
                    do {
                        try await post(envelope)
                    } catch {
                        failures.withLock { $0[String(describing: (error as? HTTPClientError)?.code ?? .other), default: 0] += 1 }
                        return
                    }
                    let t1 = Self.nowMS()
                    sendTimes.withLock { $0[envelope.context.eventID] = t0 }
                    answerTimes.withLock { $0[envelope.context.eventID] = t1 }
                    intake.withLock { $0.append(t1 - t0) }
                }
            }
            try await group.waitForAll()
        }
        let acceptSeconds = (ContinuousClock.now - start).seconds
        let failed = failures.withLock { $0 }
        let deliveries = try await waitForSimulator(total: seen + envelopes.count - failed.values.reduce(0, +), timeout: 120)
        let cpuMicros = (relay.cpuSeconds - cpuBefore) * 1e6 / Double(envelopes.count)
        let times = sendTimes.withLock { $0 }
        let answered = answerTimes.withLock { $0 }
        var latencies: [Double] = []
        var afterAnswer: [Double] = []
        var last = 0.0, first = Double.greatestFiniteMagnitude
        for d in deliveries {
            guard let sent = times[d.eventID] else { continue }
            latencies.append(d.receivedMS - sent)
            // The relay hands a delivery to its worker before answering 202,
            // so APNs may see it before the client sees the answer (then 0).
            afterAnswer.append(max(0, d.receivedMS - (answered[d.eventID] ?? sent)))
            last = max(last, d.receivedMS)
            first = min(first, d.receivedMS)
        }
        return [
            "envelopes": envelopes.count, "target_rate": options.rate,
            "accepted_per_second": (Double(envelopes.count - failed.values.reduce(0, +)) / acceptSeconds).rounded(),
            "sent_per_second": latencies.count > 1 ? (Double(latencies.count) / ((last - first) / 1000)).rounded() : 0,
            "intake_ms": Percentiles(intake.withLock { $0 }).summary,
            "submit_to_apns_ms": Percentiles(latencies).summary,
            "accepted_to_apns_ms": Percentiles(afterAnswer).summary,
            "relay_cpu_us_per_envelope": round1(cpuMicros),
            "failed_submissions": failed,
        ]
    }

    /// Closed loop with `options.concurrency` connections, then until all are sent.
    func saturationPhase(_ envelopes: [Envelope], seen: Int, verifyMicros: Double) async throws -> [String: Any] {
        let cpuBefore = relay.cpuSeconds
        let start = ContinuousClock.now
        let startMS = Self.nowMS()
        let times = try await submit(envelopes, concurrency: options.concurrency)
        let acceptSeconds = (ContinuousClock.now - start).seconds
        let deliveries = try await waitForSimulator(total: seen + envelopes.count, timeout: 300)
        let cpu = relay.cpuSeconds - cpuBefore
        var latencies: [Double] = []
        var last = 0.0
        for d in deliveries {
            guard let sent = times[d.eventID] else { continue }
            latencies.append(d.receivedMS - sent)
            last = max(last, d.receivedMS)
        }
        let cpuMicros = cpu * 1e6 / Double(envelopes.count)
        return [
            "envelopes": envelopes.count, "concurrency": options.concurrency,
            "accepted_per_second": (Double(envelopes.count) / acceptSeconds).rounded(),
            "sent_per_second": (Double(latencies.count) / ((last - startMS) / 1000)).rounded(),
            "submit_to_apns_ms": Percentiles(latencies).summary,
            "relay_cpu_us_per_envelope": round1(cpuMicros),
            "relay_cpu_per_envelope_in_ecdsa_verifies": round1(cpuMicros / verifyMicros),
        ]
    }

    /// One delivery as the simulator recorded it.
    struct Received {
        var eventID: String
        var receivedMS: Double
    }

    /// Polls the simulator until it answered 200 to `total` requests; returns the deliveries after the first `skip`.
    func waitForSimulator(total: Int, timeout: Double) async throws -> [Received] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var all: [Received] = []
        var cursor: Int64 = 0
        while true {
            let r = try await simulatorClient.execute(.init(url: simulatorURL + "/_sim/deliveries?since=\(cursor)&limit=10000"))
            guard let object = try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any],
                  let list = object["deliveries"] as? [[String: Any]] else { throw BenchError("unreadable simulator answer") }
            for d in list where (d["status"] as? Int) == 200 {
                if let id = d["apns_id"] as? String, let at = (d["received_at_ms"] as? NSNumber)?.doubleValue { all.append(Received(eventID: id, receivedMS: at)) }
            }
            cursor = (object["next"] as? NSNumber)?.int64Value ?? cursor
            if all.count >= total { return all }
            guard ContinuousClock.now < deadline else { throw BenchError("the simulator received \(all.count) of \(total) pushes in \(timeout) s") }
            if list.count < 10000 { try await Task.sleep(for: .milliseconds(100)) }
        }
    }

    func tearDown() async {
        let relay = self.relay, simulator = self.simulator
        await OwnThread.run {
            relay.stop()
            simulator.stop()
        }
        client.shutdown()
        simulatorClient.shutdown()
        await accountsServer.shutdown()
        await accounts.database.close()
        for db in databases { _ = try? await admin.execute(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(db) WITH (FORCE)")) }
        await admin.close()
        try? FileManager.default.removeItem(at: work)
    }

    /// Microseconds one P-256 ECDSA verify takes here (one core).
    static func ecdsaVerifyMicros() -> Double {
        let key = try! P256.Signing.PrivateKey()
        let message = Array("mailwake relay bench".utf8)
        let signature = try! key.signature(for: message)
        let n = 3000
        let t0 = ContinuousClock.now
        var ok = 0
        for _ in 0..<n where key.publicKey.isValidSignature(signature, for: message) { ok += 1 }
        precondition(ok == n)
        return (ContinuousClock.now - t0).seconds * 1e6 / Double(n)
    }

    static func nowMS() -> Double { Date().timeIntervalSince1970 * 1000 }

    static func openssl(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchError("openssl \(arguments.first ?? "") failed") }
    }

    static func freePort() throws -> UInt16 {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) } }
        return UInt16(bigEndian: addr.sin_port)
    }
}

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}

/// A value behind a lock, shareable between tasks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout sending Value) -> sending R) -> R { mutex.withLock(body) }
}
