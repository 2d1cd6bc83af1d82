import Foundation
import MailwakeBenchKit
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakePostgres
import MailwakeProtocol
import MailwakeHTTPTypes

/// The benchmark's running parts and its two phases.
// @unchecked Sendable: the stored properties are set once in `prepare` and only read afterwards.
final class RelayBench: BenchRun, @unchecked Sendable {
    let options: BenchOptions
    let stack: BenchStack
    let pairings: [BenchPairing]
    /// Seconds pairing every device took.
    let pairingSeconds: Double
    /// Envelopes sealed so far: where the round robin over the pairings goes on.
    let sealed = Locked(0)

    var relay: BenchProcess { stack.relay }
    var relayURL: String { stack.relayURL }
    var client: HTTPClient { stack.client }
    var simulatorClient: HTTPClient { stack.simulatorClient }
    var simulatorURL: String { stack.simulatorURL }
    var relayDatabaseURL: String { stack.relayDatabaseURL }

    private init(options: BenchOptions, stack: BenchStack, pairings: [BenchPairing], pairingSeconds: Double) {
        self.options = options
        self.stack = stack
        self.pairings = pairings
        self.pairingSeconds = pairingSeconds
    }

    static func prepare(_ options: BenchOptions) async throws -> RelayBench {
        let envelopes = options.warmUp + Int(Double(options.rate) * options.seconds) + options.saturation
        let settings = ["APNS_CLIENT": options.apnsClient, "HTTP_ENGINE": options.httpEngine,
                        "VERIFY_TABLES": String(options.verifyTables)]
        let placement = try options.relayCPUs.map { try CPUPlacement(relayList: $0) }
        let stack = try await BenchStack.start(postgresURL: options.postgresURL, name: "relay-bench",
                                               keepDeliveries: max(200_000, 2 * envelopes), connections: options.concurrency,
                                               settings: settings, placement: placement)
        // Devices registered at accounts, each paired with one outpost through the relay.
        let pairings: [BenchPairing]
        let start = ContinuousClock.now
        do {
            let outposts = try (0..<options.outposts).map { _ in try P256.Signing.PrivateKey() }
            BenchSystem.progress("pairing \(options.outposts * options.devicesPerOutpost) devices")
            pairings = try await BenchPairing.makeMany(outposts: outposts, devicesPerOutpost: options.devicesPerOutpost, stack: stack,
                                                       concurrency: options.pairConcurrency) {
                    if $0 % 10_000 == 0 { BenchSystem.progress("paired \($0)") }
                }
        } catch {
            await stack.tearDown()
            throw error
        }
        return RelayBench(options: options, stack: stack, pairings: pairings, pairingSeconds: (ContinuousClock.now - start).seconds)
    }

    func run() async throws -> [String: Any] {
        // The verify is measured before the load and after each phase: each
        // phase's ratio divides by the median of the rounds on either side of
        // it, so a machine whose speed drifts during the run (a shared VM's
        // does, by a third within minutes) weighs on both figures alike.
        let verifyBefore = Self.ecdsaVerifyRounds()
        // Warm-up: connections, prepared statements, caches.
        _ = try await submit(makeEnvelopes(options.warmUp), concurrency: 16)
        _ = try await waitForSimulator(total: options.warmUp, timeout: 60 + Double(options.warmUp) / 500)

        let fixedCount = Int(Double(options.rate) * options.seconds)
        let fixedEnvelopes = try makeEnvelopes(fixedCount)
        let footprint = options.footprint ? try await PhaseFootprint(bench: self) : nil
        BenchSystem.progress("fixed-rate phase begins")
        let verifiesBefore = try await verifyCounts()
        var start = try await footprint?.begin()
        var sampler = VerifySampler(probe: VerifyProbe())
        var fixed = try await fixedRatePhase(fixedEnvelopes, seen: options.warmUp)
        Self.addVerifyDuringLoad(to: &fixed, rounds: sampler.finish())
        let verifyBetween = Self.ecdsaVerifyRounds()
        Self.addVerifyRatio(to: &fixed, rounds: verifyBefore + verifyBetween)
        if let footprint, let start { fixed["footprint"] = try await footprint.end(start, envelopes: fixedCount) }
        let verifiesBetween = try await verifyCounts()
        fixed["relay_verifies"] = verifiesBetween.since(verifiesBefore)
        let fixedFailed = (fixed["failed_submissions"] as? [String: Int])?.values.reduce(0, +) ?? 0
        let saturationEnvelopes = try makeEnvelopes(options.saturation)
        BenchSystem.progress("saturation phase begins")
        start = try await footprint?.begin()
        sampler = VerifySampler(probe: VerifyProbe())
        var saturation = try await saturationPhase(saturationEnvelopes, seen: options.warmUp + fixedCount - fixedFailed)
        Self.addVerifyDuringLoad(to: &saturation, rounds: sampler.finish())
        let verifyAfter = Self.ecdsaVerifyRounds()
        saturation["relay_verifies"] = try await verifyCounts().since(verifiesBetween)
        let tableProbe = VerifyProbe(precomputed: true)
        let verifyWithTable = (0..<5).map { _ in tableProbe.cpuMicrosPerVerify(count: 600) }
        Self.addVerifyRatio(to: &saturation, rounds: verifyBetween + verifyAfter)
        if let footprint, let start { saturation["footprint"] = try await footprint.end(start, envelopes: options.saturation) }
        await footprint?.close()
        BenchSystem.progress("done")
        return [
            "benchmark": "mailwake-relay-bench",
            "setup": """
                     one mailwake-relay serve process (TLS, HTTP/1.1 keep-alive), PostgreSQL, the APNs simulator (HTTP/2 + TLS), \
                     accounts, and this client on one machine
                     """,
            "machine_cores": ProcessInfo.processInfo.activeProcessorCount,
            "outposts": options.outposts, "devices_per_outpost": options.devicesPerOutpost,
            "pairing": ["devices": pairings.count, "seconds": round1(pairingSeconds),
                        "per_second": (Double(pairings.count) / pairingSeconds).rounded(),
                        "concurrency": options.pairConcurrency],
            "apns_client": options.apnsClient,
            "http_engine": options.httpEngine,
            "verify_tables": options.verifyTables,
            "warm_up_envelopes": options.warmUp,
            "cpu_placement": stack.cpuPlacement,
            "ecdsa_p256_verify_us": round1(Self.median(verifyBefore + verifyBetween + verifyAfter)),
            "ecdsa_p256_verify_us_by_moment": ["before_load": round1(Self.median(verifyBefore)),
                                               "after_fixed_rate": round1(Self.median(verifyBetween)),
                                               "after_saturation": round1(Self.median(verifyAfter))],
            "ecdsa_p256_verify_with_table_us": round1(Self.median(verifyWithTable)),
            "ecdsa_p256_verify_note": """
                                      CPU time of this thread per verify, 5 rounds of 600 before the load, after the fixed-rate \
                                      phase and after saturation; each phase's ratio divides by the median of the 10 rounds \
                                      either side of it (its ecdsa_p256_verify_us). Each phase also has the verify timed \
                                      while it ran (40 verifies every 250 ms on a thread of the bench, \
                                      ecdsa_p256_verify_us_during_phase) and its ratio against that. The unit is the verify with \
                                      a parsed key alone; ecdsa_p256_verify_with_table_us is the same verify with the key's \
                                      precomputed table (the relay's for a busy outpost key, VERIFY_TABLES), after saturation
                                      """,
            "fixed_rate": fixed, "saturation": saturation,
            "target": "≥ 8,000/s sustained; p99 accept → APNs < 50 ms at 2,000/s (DESIGN.md §6)",
            "hops_note": """
                         fixed_rate.accepted_to_sent_ms, sent_to_displayed_ms, accepted_to_displayed_ms: from the relay's deliveries \
                         rows after the devices' receipts (PROTOCOL §13)
                         """,
        ]
    }

    /// Envelopes round-robin over the pairings, sealed before any timing starts; each call
    /// continues where the last one stopped (with more pairings than envelopes, no device gets two).
    func makeEnvelopes(_ count: Int) throws -> [Envelope] {
        let first = sealed.withLock { n -> Int in defer { n += count }; return n }
        return try (first..<first + count).map { i in try pairings[i % pairings.count].envelope() }
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
                        let sentAt = BenchSystem.nowMS()
                        try await post(envelopes[i])
                        times.withLock { $0[envelopes[i].context.eventID] = sentAt }
                    }
                }
            }
            try await group.waitForAll()
        }
        return times.withLock { $0 }
    }

    /// `submit` through `LeanLoad` on a thread of its own: the same closed loop, every answer a 202.
    func submitLean(_ envelopes: [Envelope], bodies: [[UInt8]], concurrency: Int,
                    connected: @escaping @Sendable () -> Void) async throws -> [String: Double] {
        let relay = try leanTarget()
        let answers = try await OwnThread.run {
            try LeanLoad.closedLoop(ip: relay.ip, port: relay.port, hostHeader: relay.hostHeader, path: "/v1/envelopes",
                                    caFile: relay.caFile, connections: concurrency, bodies: bodies, connected: connected)
        }
        if let refused = answers.first(where: { $0.status != 202 }) {
            throw BenchError("an envelope was answered \(refused.status == 0 ? "with a failed connection" : String(refused.status))")
        }
        var times: [String: Double] = [:]
        times.reserveCapacity(envelopes.count)
        for (envelope, answer) in zip(envelopes, answers) { times[envelope.context.eventID] = answer.sentMS }
        return times
    }

    /// The relay's counters and the clocks when a phase's load begins: after the load client's connections are set up
    /// (their TLS handshakes are not the phase's work).
    struct PhaseStart: Sendable {
        var cpuSeconds: Double
        var switches: Int
        var threads: [String: Double]
        var instant: ContinuousClock.Instant
        var wallMS: Double
    }

    /// Runs a phase's load; returns the relay's counters when it began and what the load returned.
    ///
    /// - Parameter load: posts the phase's envelopes, calling its argument once, when it is ready to send (the lean
    ///   client once its connections are set up).
    func withPhaseStart<T>(_ load: (_ began: @escaping @Sendable () -> Void) async throws -> T) async throws -> (PhaseStart, T) {
        let started = Locked<PhaseStart?>(nil)
        let result = try await load { [self] in
            let now = PhaseStart(cpuSeconds: relay.cpuSeconds, switches: relay.contextSwitches,
                                 threads: relay.threadCPUSeconds(groupedBy: Self.threadGroup), instant: .now,
                                 wallMS: BenchSystem.nowMS())
            started.withLock { $0 = now }
        }
        guard let phase = started.withLock({ $0 }) else { throw BenchError("a phase's load never began") }
        return (phase, result)
    }

    /// The relay's intake as the lean client reaches it: its address literal, port, Host header and the CA to trust.
    func leanTarget() throws -> (ip: String, port: Int, hostHeader: String, caFile: String) {
        guard let url = URLComponents(string: relayURL), let host = url.host, let port = url.port else {
            throw BenchError("unreadable relay URL \(relayURL)")
        }
        return (host, port, "\(host):\(port)", stack.caFile)
    }

    /// What became of one envelope of the fixed-rate phase.
    struct Posted {
        var sentMS: Double
        var answeredMS: Double
        /// Why it was not accepted (the kind of failure), nil when answered 202.
        var failure: String?
    }

    /// Posts `envelopes` through `LeanLoad`'s open loop on `schedule`, on a thread of its own.
    func postLean(_ envelopes: [Envelope], bodies: [[UInt8]], schedule: ArrivalSchedule, connections: Int,
                  connected: @escaping @Sendable () -> Void) async throws -> [Posted] {
        let relay = try leanTarget()
        let answers = try await OwnThread.run {
            try LeanLoad.openLoop(ip: relay.ip, port: relay.port, hostHeader: relay.hostHeader, path: "/v1/envelopes",
                                  caFile: relay.caFile, connections: connections, bodies: bodies, schedule: schedule,
                                  connected: connected)
        }
        return answers.map { a in
            Posted(sentMS: a.sentMS, answeredMS: a.answeredMS,
                   failure: a.status == 202 ? nil : a.status == 0 ? "connection" : "status_\(a.status)")
        }
    }

    /// Posts `envelopes` through the HTTP client (libcurl) on `schedule`, a task each.
    func postAtRate(_ envelopes: [Envelope], schedule: ArrivalSchedule) async throws -> [Posted] {
        let start = ContinuousClock.now
        let posted = Locked([Posted?](repeating: nil, count: envelopes.count))
        // A discarding group: each finished child leaves the group at once. A
        // plain group kept all of them (150,000 at 2,500/s for 60 s) until
        // waitForAll, and the runtime's child list work grew with them.
        try await withThrowingDiscardingTaskGroup { group in
            for (i, envelope) in envelopes.enumerated() {
                try await Task.sleep(until: start + .nanoseconds(schedule.offsetsNS[i]), clock: .continuous)
                group.addTask { [self] in
                    let t0 = BenchSystem.nowMS()
                    var failure: String?
                    do {
                        try await post(envelope)
                    } catch {
                        failure = String(describing: (error as? HTTPClientError)?.code ?? .other)
                    }
                    let done = Posted(sentMS: t0, answeredMS: BenchSystem.nowMS(), failure: failure)
                    posted.withLock { $0[i] = done }
                }
            }
        }
        return posted.withLock { $0.map { $0! } }
    }

    func post(_ envelope: Envelope) async throws {
        let r = try await client.execute(.init(method: .post, url: relayURL + "/v1/envelopes",
                                               headers: ["Content-Type": "application/json"],
                                               body: envelope.jsonBytes))
        guard r.status == .accepted else { throw BenchError("an envelope was answered \(r.status.code): \(r.text)") }
    }

    /// Open loop at `options.rate` a second.
    func fixedRatePhase(_ envelopes: [Envelope], seen: Int) async throws -> [String: Any] {
        // The lean client posts bodies written before the phase; libcurl's path writes each as it posts it.
        let bodies = options.loadClient == "lean" ? envelopes.map(\.jsonBytes) : nil
        let schedule = ArrivalSchedule(count: envelopes.count, rate: options.rate, pattern: options.arrivals)
        // The devices post receipts while the phase runs.
        let index = Dictionary(pairings.enumerated().map { ($1.pairingID, $0) }, uniquingKeysWith: { a, _ in a })
        let receipts = ReceiptPoster(bench: self, envelopes: envelopes, pairingIndex: index)
        let receiptTask = Task { [options] in if options.receipts { try await receipts.run() } }
        let (phase, posted) = try await withPhaseStart { began in
            guard let bodies else {
                began()
                return try await postAtRate(envelopes, schedule: schedule)
            }
            return try await postLean(envelopes, bodies: bodies, schedule: schedule, connections: options.concurrency, connected: began)
        }
        var times: [String: Double] = [:], answered: [String: Double] = [:]
        var intake: [Double] = []
        // Open loop: a rate the machine cannot carry shows as failed
        // submissions (answers that never came in time), not as an abort.
        var failed: [String: Int] = [:]
        // How late each envelope was written against its schedule: a relay that falls behind keeps every connection
        // busy, and the open loop's next envelopes wait for one.
        let lateness = zip(posted, schedule.offsetsNS).map { max(0, $0.sentMS - phase.wallMS - Double($1) / 1e6) }
        for (envelope, post) in zip(envelopes, posted) {
            if let failure = post.failure {
                failed[failure, default: 0] += 1
                continue
            }
            times[envelope.context.eventID] = post.sentMS
            answered[envelope.context.eventID] = post.answeredMS
            intake.append(post.answeredMS - post.sentMS)
        }
        let acceptSeconds = (ContinuousClock.now - phase.instant).seconds
        let deliveries = try await waitForSimulator(total: seen + envelopes.count - failed.values.reduce(0, +), timeout: 120)
        let cpuMicros = (relay.cpuSeconds - phase.cpuSeconds) * 1e6 / Double(envelopes.count)
        let switches = relay.contextSwitches - phase.switches
        receipts.stop()
        try await receiptTask.value
        let hops = try await receiptHops(envelopes.map(\.context.eventID))
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
            "envelopes": envelopes.count, "target_rate": options.rate, "load_client": options.loadClient,
            "arrivals": options.arrivals.rawValue,
            "accepted_per_second": (Double(envelopes.count - failed.values.reduce(0, +)) / acceptSeconds).rounded(),
            "sent_per_second": latencies.count > 1 ? (Double(latencies.count) / ((last - first) / 1000)).rounded() : 0,
            "sent_late_ms": Percentiles(lateness).summary,
            "intake_ms": Percentiles(intake).summary,
            "submit_to_apns_ms": Percentiles(latencies).summary,
            "accepted_to_apns_ms": Percentiles(afterAnswer).summary,
            "relay_cpu_us_per_envelope": round1(cpuMicros),
            "relay_voluntary_context_switches_per_envelope": round2(Double(switches) / Double(envelopes.count)),
            "relay_cpu_note": options.receipts ? "includes the receipt requests of the phase" : "no receipts (--no-receipts)",
            "failed_submissions": failed,
            "receipts": [
                "posted": receipts.posted.withLock { $0 }, "requests": receipts.requests.withLock { $0 },
                "failed": receipts.failed.withLock { $0 },
                "displayed": hops.displayed,
                "how": """
                       each simulated device learns of its pushes by polling the APNs simulator every 50 ms and posts one receipt \
                       request per poll; shown_at = when it learned
                       """,
            ] as [String: Any],
            "accepted_to_sent_ms": Percentiles(hops.acceptedToSent).summary,
            "sent_to_displayed_ms": Percentiles(hops.sentToDisplayed).summary,
            "accepted_to_displayed_ms": Percentiles(hops.acceptedToDisplayed).summary,
        ]
    }

    /// Per-hop latencies of the phase's deliveries from the relay's own record
    /// (accepted_ms, sent_ms, displayed_ms; the relay's clock, as its histograms).
    func receiptHops(_ eventIDs: [String]) async throws -> (displayed: Int, acceptedToSent: [Double], sentToDisplayed: [Double],
                                                            acceptedToDisplayed: [Double]) {
        let db = PostgresClient(configuration: try .init(url: relayDatabaseURL), logger: .disabled)
        var b = PostgresBindings()
        b.append(PostgresArray(eventIDs))
        let rows: PostgresRows
        do {
            rows = try await db.query(PostgresQuery(unsafeSQL: """
                SELECT accepted_ms, sent_ms, displayed_ms FROM deliveries WHERE event_id = ANY($1::text[]) AND status = 'displayed'
                """, bindings: b))
        } catch {
            await db.close()
            throw error
        }
        await db.close()
        var a2s: [Double] = [], s2d: [Double] = [], a2d: [Double] = []
        for row in rows {
            let (accepted, sent, displayed) = try row.decode((Int64, Int64?, Int64?).self)
            guard let displayed else { continue }
            a2d.append(Double(displayed - accepted))
            if let sent {
                a2s.append(Double(sent - accepted))
                s2d.append(Double(max(0, displayed - sent)))
            }
        }
        return (rows.count, a2s, s2d, a2d)
    }

    /// Closed loop with `options.concurrency` connections, then until all are sent.
    func saturationPhase(_ envelopes: [Envelope], seen: Int) async throws -> [String: Any] {
        // The lean client posts bodies written before the phase; libcurl's path writes each as it posts it.
        let bodies = options.loadClient == "lean" ? envelopes.map(\.jsonBytes) : nil
        let (phase, times) = try await withPhaseStart { began in
            guard let bodies else {
                began()
                return try await submit(envelopes, concurrency: options.concurrency)
            }
            return try await submitLean(envelopes, bodies: bodies, concurrency: options.concurrency, connected: began)
        }
        let acceptSeconds = (ContinuousClock.now - phase.instant).seconds
        let deliveries = try await waitForSimulator(total: seen + envelopes.count, timeout: 300)
        let cpu = relay.cpuSeconds - phase.cpuSeconds
        let threads = relay.threadCPUSeconds(groupedBy: Self.threadGroup)
        let switches = relay.contextSwitches - phase.switches
        var latencies: [Double] = []
        var last = 0.0
        for d in deliveries {
            guard let sent = times[d.eventID] else { continue }
            latencies.append(d.receivedMS - sent)
            last = max(last, d.receivedMS)
        }
        let cpuMicros = cpu * 1e6 / Double(envelopes.count)
        // Live threads only: what threads that ended during the phase used is in the total, not here.
        var byThread: [String: Double] = [:]
        for (group, seconds) in threads {
            byThread[group] = round1((seconds - (phase.threads[group] ?? 0)) * 1e6 / Double(envelopes.count))
        }
        return [
            "envelopes": envelopes.count, "concurrency": options.concurrency, "load_client": options.loadClient,
            "accepted_per_second": (Double(envelopes.count) / acceptSeconds).rounded(),
            "sent_per_second": (Double(latencies.count) / ((last - phase.wallMS) / 1000)).rounded(),
            "submit_to_apns_ms": Percentiles(latencies).summary,
            "relay_cpu_us_per_envelope": round1(cpuMicros),
            "relay_voluntary_context_switches_per_envelope": round2(Double(switches) / Double(envelopes.count)),
            "relay_cpu_us_per_envelope_by_thread": byThread,
        ]
    }

    /// Which part of the relay a thread belongs to, by its name.
    static func threadGroup(_ name: String) -> String {
        if name.hasPrefix("MHD") || name.hasPrefix("mw-ep-http") {
            return "http_server"                                        // the listener's threads (TLS, HTTP parsing)
        }
        if name.hasPrefix("mw-h2-apns") || name.hasPrefix("mw-http-apns") {
            return "apns_client"                                        // the APNs client's thread (HTTP/2, TLS)
        }
        if name.hasPrefix("mw-http-") { return "other_http_clients" } // accounts, diagnostics
        if name.hasPrefix("mailwake-pg") { return "postgres_connections" }
        return "swift_pool_and_other"
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
            let page = try await simulatorPage(since: cursor)
            for d in page.deliveries where d.status == 200 {
                if let id = d.apnsID { all.append(Received(eventID: id, receivedMS: Double(d.receivedAtMS))) }
            }
            cursor = page.next
            if all.count >= total { return all }
            guard ContinuousClock.now < deadline else { throw BenchError("""
                                                                         the simulator received \(all.count) of \(total) pushes in \
                                                                         \(timeout) s
                                                                         """) }
            if page.deliveries.count < 10000 { try await Task.sleep(for: .milliseconds(100)) }
        }
    }

    func tearDown() async { await stack.tearDown() }

    /// Adds the phase's CPU per envelope in verifies, against the median of `rounds`.
    static func addVerifyRatio(to phase: inout [String: Any], rounds: [Double]) {
        let verify = median(rounds)
        phase["ecdsa_p256_verify_us"] = round1(verify)
        if let cpu = phase["relay_cpu_us_per_envelope"] as? Double {
            phase["relay_cpu_per_envelope_in_ecdsa_verifies"] = round2(cpu / verify)
        }
    }

    /// Adds the verify timed while the phase ran, and the phase's CPU per envelope against it.
    static func addVerifyDuringLoad(to phase: inout [String: Any], rounds: [Double]) {
        guard !rounds.isEmpty else { return }
        let verify = median(rounds)
        phase["ecdsa_p256_verify_us_during_phase"] = round1(verify)
        phase["ecdsa_p256_verify_rounds_during_phase"] = rounds.count
        if let cpu = phase["relay_cpu_us_per_envelope"] as? Double {
            phase["relay_cpu_per_envelope_in_verifies_during_phase"] = round2(cpu / verify)
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// CPU microseconds per verify in five rounds of 600, on the calling thread.
    static func ecdsaVerifyRounds() -> [Double] {
        let probe = VerifyProbe()
        return (0..<5).map { _ in probe.cpuMicrosPerVerify(count: 600) }
    }
}
