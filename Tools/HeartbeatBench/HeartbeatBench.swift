import Foundation
import MailwakeBenchKit
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
import RelayService

/// The benchmark's running parts: the stack, the paired outposts and its phases.
// @unchecked Sendable: the stored properties are set once in `prepare` and only read afterwards.
final class HeartbeatBench: BenchRun, @unchecked Sendable {
    static let body = Array(#"{"mailboxes":3,"failing":0}"#.utf8)

    let options: HeartbeatBenchOptions
    let stack: BenchStack
    let relayDatabase: PostgresClient
    let relayDatabaseName: String
    let outposts: [P256.Signing.PrivateKey]
    let pairingSeconds: Double

    private init(options: HeartbeatBenchOptions, stack: BenchStack, relayDatabase: PostgresClient, outposts: [P256.Signing.PrivateKey],
                 pairingSeconds: Double) {
        self.options = options
        self.stack = stack
        self.relayDatabase = relayDatabase
        relayDatabaseName = stack.databases[1]
        self.outposts = outposts
        self.pairingSeconds = pairingSeconds
    }

    static func prepare(_ options: HeartbeatBenchOptions) async throws -> HeartbeatBench {
        let stack = try await BenchStack.start(postgresURL: options.postgresURL, name: "heartbeat-bench", keepDeliveries: 1000,
                                               connections: max(options.concurrency, options.pairConcurrency))
        let relayDatabase = PostgresClient(configuration: try .init(url: stack.relayDatabaseURL), logger: .disabled)
        do {
            // Every outpost paired with one device through the relay's pairing API (PROTOCOL §9).
            BenchSystem.progress("pairing \(options.outposts) outposts")
            let start = ContinuousClock.now
            let keys = try (0..<options.outposts).map { _ in try P256.Signing.PrivateKey() }
            _ = try await BenchPairing.makeMany(outposts: keys, devicesPerOutpost: 1, stack: stack, concurrency: options.pairConcurrency) {
                BenchSystem.progress("paired \($0)")
            }
            let seconds = (ContinuousClock.now - start).seconds
            return HeartbeatBench(options: options, stack: stack, relayDatabase: relayDatabase, outposts: keys, pairingSeconds: seconds)
        } catch {
            await relayDatabase.close()
            await stack.tearDown()
            throw error
        }
    }

    func run() async throws -> [String: Any] {
        var rounds: [[String: Any]] = []
        for round in 1...options.rounds {
            BenchSystem.progress("round \(round) of \(options.rounds)")
            rounds.append(try await saturatedRound(first: round == 1))
        }
        BenchSystem.progress("real rate for \(options.seconds) s")
        let real = try await realRatePhase()
        BenchSystem.progress("silence-watch passes")
        let silence = try await silencePasses()
        let rows = try await relayDatabase.query("""
                                                 SELECT count(*), pg_total_relation_size('outpost_heartbeats') FROM \
                                                 outpost_heartbeats
                                                 """).single()
        let (count, bytes) = try rows.decode((Int64, Int64).self)
        return [
            "benchmark": "mailwake-heartbeat-bench",
            "setup": """
                     one mailwake-relay serve process (TLS, HTTP/1.1 keep-alive), PostgreSQL, the APNs simulator, accounts, and this \
                     client on one machine
                     """,
            "machine_cores": ProcessInfo.processInfo.activeProcessorCount,
            "outposts": options.outposts,
            "pairing": ["seconds": round1(pairingSeconds), "per_second": (Double(options.outposts) / pairingSeconds).rounded(),
                        "concurrency": options.pairConcurrency],
            "rounds": rounds,
            "real_rate": real,
            "silence_watch_pass_ms": silence,
            "outpost_heartbeats": ["rows": count, "table_and_index_bytes": bytes],
        ]
    }

    /// Every outpost once, as fast as `concurrency` connections are answered.
    func saturatedRound(first: Bool) async throws -> [String: Any] {
        let requests = try outposts.map { try Self.signedHeartbeat($0) }
        let next = Locked(0)
        let latencies = Locked([Double]())
        let m = try await measured { try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<options.concurrency {
                group.addTask { [self] in
                    while true {
                        let i = next.withLock { n -> Int in defer { n += 1 }; return n }
                        guard i < requests.count else { return }
                        let t0 = ContinuousClock.now
                        try await post(requests[i])
                        let ms = (ContinuousClock.now - t0).seconds * 1000
                        latencies.withLock { $0.append(ms) }
                    }
                }
            }
            try await group.waitForAll()
        } }
        let (seconds, cpu) = (m.seconds, m.cpu)
        return [
            "heartbeats": requests.count, "first_round": first, "concurrency": options.concurrency,
            "seconds": (seconds * 100).rounded() / 100, "per_second": (Double(requests.count) / seconds).rounded(),
            "relay_cpu_seconds": (cpu * 100).rounded() / 100, "relay_cpu_us_per_heartbeat": round1(cpu * 1e6 / Double(requests.count)),
            "latency_ms": Percentiles(latencies.withLock { $0 }).summary,
            "postgres": m.postgres(requests.count),
        ]
    }

    /// `outposts / interval` heartbeats a second, open loop, for `seconds`.
    func realRatePhase() async throws -> [String: Any] {
        let rate = Double(options.outposts) / options.interval
        let count = Int(rate * options.seconds)
        let latencies = Locked([Double]())
        let failures = Locked(0)
        let m = try await measured { try await withThrowingTaskGroup(of: Void.self) { group in
            let start = ContinuousClock.now
            for i in 0..<count {
                try await Task.sleep(until: start + .seconds(Double(i) / rate), clock: .continuous)
                let key = outposts[i % outposts.count]
                group.addTask { [self] in
                    do {
                        let request = try Self.signedHeartbeat(key)
                        let t0 = ContinuousClock.now
                        try await post(request)
                        let ms = (ContinuousClock.now - t0).seconds * 1000
                        latencies.withLock { $0.append(ms) }
                    } catch {
                        failures.withLock { $0 += 1 }
                    }
                }
            }
            try await group.waitForAll()
        } }
        let (seconds, cpu) = (m.seconds, m.cpu)
        return [
            "target_per_second": round1(rate), "heartbeats": count, "failed": failures.withLock { $0 }, "seconds": round1(seconds),
            "relay_cpu_seconds": (cpu * 100).rounded() / 100, "relay_cpu_percent_of_one_core": round1(cpu / seconds * 100),
            "relay_cpu_us_per_heartbeat": round1(cpu * 1e6 / Double(count)),
            "latency_ms": Percentiles(latencies.withLock { $0 }).summary,
            "postgres": m.postgres(count),
            "postgres_note": """
                             includes the relay's background work during the phase and the \(options.settle) s settle (gauges every 5 \
                             s, silence watch every 15 s)
                             """,
        ]
    }

    /// Runs `phase`; returns its wall and relay CPU seconds and, read after the settle, PostgreSQL's writes (per heartbeat given).
    func measured(_ phase: () async throws -> Void) async throws -> (seconds: Double, cpu: Double, postgres: (Int) -> [String: Any]) {
        let before = try await PostgresCounters.read(relayDatabase, database: relayDatabaseName)
        let cpuBefore = stack.relay.cpuSeconds
        let start = ContinuousClock.now
        try await phase()
        let seconds = (ContinuousClock.now - start).seconds
        let cpu = stack.relay.cpuSeconds - cpuBefore
        try await Task.sleep(for: .seconds(options.settle))
        let after = try await PostgresCounters.read(relayDatabase, database: relayDatabaseName)
        return (seconds, cpu, { after.since(before, per: $0) })
    }

    /// The relay's own silence-watch pass (RelayService.SilenceWatch.check) over the full table, none silent: the steady-state cost.
    func silencePasses() async throws -> [String: Double] {
        var configuration = RelayConfiguration(publicOrigin: BenchStack.origin, databaseURL: stack.relayDatabaseURL,
                                               accounts: .init(url: "http://127.0.0.1:1", token: "unused"),
                                               apns: .init(keyFile: "/dev/null", keyID: "UNUSED", teamID: "UNUSED",
                                                           bundleID: BenchStack.bundleID))
        configuration.outpostSilence = 600
        let watch = SilenceWatch(database: relayDatabase, configuration: configuration, logger: .disabled, clockMS: WallClock.milliseconds)
        var times: [Double] = []
        for _ in 0..<options.silencePasses {
            let t0 = ContinuousClock.now
            let silenced = try await watch.check()
            guard silenced.isEmpty else { throw BenchError("the silence watch marked \(silenced.count) live outposts silent") }
            times.append((ContinuousClock.now - t0).seconds * 1000)
        }
        let p = Percentiles(times)
        return ["passes": Double(times.count), "p50": (p.at(0.5) * 100).rounded() / 100, "max": (p.at(1) * 100).rounded() / 100]
    }

    /// A heartbeat request of `outpost`, signed now (PROTOCOL §8).
    static func signedHeartbeat(_ outpost: P256.Signing.PrivateKey) throws -> HTTPClient.Request {
        let path = "/v1/outposts/\(KeyIdentity.id(of: outpost.publicKey))/heartbeat"
        return try .signed(.post, baseURL: "", path, body: body, key: outpost, origin: BenchStack.origin, timestamp: WallClock.seconds())
    }

    func post(_ request: HTTPClient.Request) async throws {
        var request = request
        request.url = stack.relayURL + request.url
        let r = try await stack.client.execute(request)
        guard r.status == .noContent else { throw BenchError("a heartbeat was answered \(r.status.code): \(r.text)") }
    }

    func tearDown() async {
        await relayDatabase.close()
        await stack.tearDown()
    }
}
