import Foundation
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
import RelayService
import StackSupport
import TestSupport
import Testing

@Suite("Relay: envelope intake (PROTOCOL §5)", .serialized, .awaitedCleanup)
struct IntakeTests {
    /// A stack with one active pairing.
    struct Paired {
        let stack: RelayStack
        let outpost: SimulatedOutpost
        let device: SimulatedDevice
        let pairingID: String

        static func start(trialDays: Int = 7, clock: MovableClock? = nil,
                          adjust: @escaping @Sendable (inout RelayConfiguration) -> Void = { _ in }) async throws -> Paired {
            let stack = try await RelayStack.start(trialDays: trialDays, adjust: adjust, clockMS: clock?.closure, transport: .inMemory)
            let outpost = try SimulatedOutpost()
            let device = try await stack.registeredDevice()
            return Paired(stack: stack, outpost: outpost, device: device, pairingID: try await stack.pair(outpost, device))
        }

        func envelope(eventID: String? = nil, subject: String = "Your sign-in code", iat: Int64? = nil,
                      audience: String = RelayInstance.origin) throws -> Envelope {
            try outpost.envelope(for: device, pairingID: pairingID, content: SimulatedOutpost.sampleContent(subject: subject),
                                 eventID: eventID,
                                 iat: iat, audience: audience)
        }

        func submit(raw: [UInt8]) async throws -> HTTPClient.Response {
            try await stack.send(.post, "/v1/envelopes", body: raw)
        }
    }

    @Test func anAcceptedEnvelopeIsAnsweredQueued() async throws {
        let p = try await Paired.start()
        let response = try await p.stack.submit(try p.envelope())
        #expect(response.status == .accepted)
        #expect(try response.decode(RelayResponses.Status.self).status == "queued")
    }

    @Test func anEnvelopeOverTheSizeLimitIsRefused() async throws {
        let p = try await Paired.start()
        var raw = try p.envelope().jsonBytes
        raw.removeLast()
        raw += Array(#","padding":""#.utf8) + [UInt8](repeating: 0x41, count: 9000) + Array(#""}"#.utf8)
        expectProblem(try await p.submit(raw: raw), .contentTooLarge, "too_large")
    }

    @Test func malformedJSONIsRefusedWithTheFailedCheck() async throws {
        let p = try await Paired.start()
        expectProblem(try await p.submit(raw: Array("{not json".utf8)), .badRequest, "malformed")
        let good = String(decoding: try p.envelope().jsonBytes, as: UTF8.self)
        expectProblem(try await p.submit(raw: Array(good.replacingOccurrences(of: #""v":1,"#, with: #""v":1,"v":1,"#).utf8)), .badRequest,
                      "malformed")
        expectProblem(try await p.submit(raw: Array(good.replacingOccurrences(of: #""v":1,"#, with: #""v":1,"extra":true,"#).utf8)),
                      .badRequest, "malformed")
        expectProblem(try await p.submit(raw: Array(good.replacingOccurrences(of: #""v":1,"#, with: #""v":2,"#).utf8)), .badRequest,
                      "malformed")
        expectProblem(try await p.submit(raw: Array(good.replacingOccurrences(of: "P256-HKDF-SHA256-A256GCM",
                                                                              with: "P256-HKDF-SHA256-A128GCM").utf8)),
                      .badRequest, "malformed")
    }

    @Test func anEnvelopeForAnotherRelayIsRefused() async throws {
        let p = try await Paired.start()
        expectProblem(try await p.stack.submit(try p.envelope(audience: "https://other-relay.example")), .badRequest, "wrong_audience")
    }

    @Test func anEnvelopeFromTooFarInTheFutureOrTooLongAgoIsRefused() async throws {
        let p = try await Paired.start()
        let now = Int64(Date().timeIntervalSince1970)
        expectProblem(try await p.stack.submit(try p.envelope(iat: now + 700)), .badRequest, "clock_skew")
        expectProblem(try await p.stack.submit(try p.envelope(iat: now - 86400 - 60)), .gone, "expired")
        #expect(try await p.stack.submit(try p.envelope(iat: now + 500)).status == .accepted)
    }

    @Test func anEnvelopeForAnUnknownPairingIsRefused() async throws {
        let p = try await Paired.start()
        let stray = try p.outpost.envelope(for: p.device, pairingID: try PairingID.generate(), content: SimulatedOutpost.sampleContent())
        expectProblem(try await p.stack.submit(stray), .notFound, "pairing-not-found")
    }

    @Test func everyFlippedBitInTheSignedPartsIsRefused() async throws {
        let p = try await Paired.start()
        let good = try p.envelope()
        var mutations: [(String, Envelope)] = []
        var e = good; e.signature[5] ^= 1; mutations.append(("sig", e))
        e = good; e.ciphertext[0] ^= 0x80; mutations.append(("ct", e))
        e = good; e.ciphertext[e.ciphertext.count - 1] ^= 1; mutations.append(("tag", e))
        e = good; e.salt[31] ^= 1; mutations.append(("salt", e))
        e = good; e.nonce[0] ^= 1; mutations.append(("nonce", e))
        e = good; e.context.iat -= 1; mutations.append(("iat", e))
        for (field, mutated) in mutations {
            let response = try await p.stack.submit(mutated)
            #expect(response.status == .unauthorized, "flipping \(field) answered \(response.status.code)")
            expectProblem(response, .unauthorized, "bad_signature")
        }
        #expect(try await p.stack.submit(good).status == .accepted)
    }

    @Test func onceItsPairingAndAccountsAnswersAreCachedAnEnvelopeIsCheckedOnTheListenersThreadWithTheSameAnswers() async throws {
        let p = try await Paired.start()
        #expect(try await p.stack.submit(try p.envelope()).status == .accepted, "loads the pairing and accounts' answers")
        let first = p.stack.relay.app.metrics.render()
        #expect(first.contains(#"mailwake_relay_envelope_checks_total{on="task"} 1"#))
        #expect(first.contains(#"mailwake_relay_envelope_checks_total{on="listener"} 0"#))
        var forged = try p.envelope()
        forged.signature[7] ^= 1
        expectProblem(try await p.stack.submit(forged), .unauthorized, "bad_signature")
        let impostor = try SimulatedOutpost().envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        expectProblem(try await p.stack.submit(impostor), .unauthorized, "bad_signature")
        expectProblem(try await p.stack.submit(try p.envelope(audience: "https://other-relay.example")), .badRequest, "wrong_audience")
        let good = try p.envelope()
        #expect(try await p.stack.submit(good).status == .accepted)
        #expect(try await p.stack.submit(good).status == .accepted, "a replay is answered as the duplicate it is")
        let conflicting = try p.envelope(eventID: good.context.eventID, subject: "Another subject")
        expectProblem(try await p.stack.submit(conflicting), .conflict, "event-conflict")
        let metrics = p.stack.relay.app.metrics.render()
        #expect(metrics.contains(#"mailwake_relay_envelope_checks_total{on="listener"} 6"#), "\(metrics)")
        #expect(metrics.contains(#"mailwake_relay_envelope_checks_total{on="task"} 1"#))
        #expect(metrics.contains("mailwake_relay_envelopes_duplicate_total 1"))
    }

    @Test func aBusyOutpostKeysEnvelopesAreCheckedWithItsTableAndForgeriesAreStillRefused() async throws {
        let p = try await Paired.start { $0.verifyTableThreshold = 3 }
        var forged = try p.envelope()
        forged.signature[3] ^= 1
        for _ in 0..<5 { expectProblem(try await p.stack.submit(forged), .unauthorized, "bad_signature") }
        let replayed = try p.envelope()
        for _ in 0..<4 { #expect(try await p.stack.submit(replayed).status == .accepted) }
        #expect(p.stack.relay.app.metrics.shows("mailwake_relay_verify_tables_built_total 0"), "forgeries and replays earn no table")
        for _ in 0..<2 { #expect(try await p.stack.submit(try p.envelope()).status == .accepted) }
        try await Self.waitForMetric("mailwake_relay_verify_tables 1", in: p.stack)
        #expect(try await p.stack.submit(try p.envelope()).status == .accepted)
        expectProblem(try await p.stack.submit(forged), .unauthorized, "bad_signature")
        let impostor = try SimulatedOutpost().envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        expectProblem(try await p.stack.submit(impostor), .unauthorized, "bad_signature")
        #expect(p.stack.relay.app.metrics.shows(#"mailwake_relay_envelope_verifies_total{with="table"} 3"#))
        #expect(p.stack.relay.app.metrics.shows("mailwake_relay_verify_tables_built_total 1"))
    }

    @Test func withNoVerifyTablesEveryEnvelopeIsCheckedWithTheKey() async throws {
        let p = try await Paired.start { $0.verifyTables = 0; $0.verifyTableThreshold = 1 }
        for _ in 0..<3 { #expect(try await p.stack.submit(try p.envelope()).status == .accepted) }
        #expect(p.stack.relay.app.metrics.shows(#"mailwake_relay_envelope_verifies_total{with="key"} 3"#))
        #expect(p.stack.relay.app.metrics.shows("mailwake_relay_verify_tables_built_total 0"))
    }

    /// Waits until the relay's metrics show `line` (a table is built on a thread of its own).
    static func waitForMetric(_ line: String, in stack: RelayStack, timeout: Double = 60) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while !stack.relay.app.metrics.shows(line) {
            guard ContinuousClock.now < deadline else {
                throw TestHarnessError("the relay's metrics did not show \(line) within \(timeout) s")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func anEnvelopeSignedByAnotherOutpostIsRefused() async throws {
        let p = try await Paired.start()
        let impostor = try SimulatedOutpost()
        let forged = try impostor.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        expectProblem(try await p.stack.submit(forged), .unauthorized, "bad_signature")
    }

    @Test func aDeviceWithoutEntitlementGetsNoPush() async throws {
        let p = try await Paired.start(trialDays: 0)
        expectProblem(try await p.stack.submit(try p.envelope()), .forbidden, "device-not-entitled")
    }

    @Test func aDeviceBlockedAtAccountsGetsNoPush() async throws {
        let p = try await Paired.start { $0.accounts.cacheTTL = .zero }
        let blocked = try await p.stack.client.execute(.init(
            method: .put, url: p.stack.accounts.url + "/operator/v1/devices/\(p.device.id)/block",
            headers: ["Authorization": "Bearer \(AccountsInstance.operatorToken)", "Content-Type": "application/json"],
            body: Array(#"{"reason":"fraud"}"#.utf8)))
        #expect(blocked.status == .noContent)
        expectProblem(try await p.stack.submit(try p.envelope()), .forbidden, "device-not-authorized")
    }

    @Test func anEnvelopeWhoseAPNsPayloadWouldExceed4096BytesIsRefused() async throws {
        let p = try await Paired.start()
        let big = try p.envelope(subject: String(repeating: "x", count: 2700))
        expectProblem(try await p.stack.submit(big), .contentTooLarge, "payload-too-large")
    }

    @Test func theSameBytesAgainAnswerAsTheFirstTimeAndAreDeliveredOnce() async throws {
        let p = try await Paired.start()
        let envelope = try p.envelope()
        #expect(try await p.stack.submit(envelope).status == .accepted)
        let again = try await p.stack.submit(envelope)
        #expect(again.status == .accepted)
        #expect(try again.decode(RelayResponses.Status.self).status == "queued")
        let concurrent = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
            for _ in 0..<8 { group.addTask { try await p.stack.submit(envelope).status } }
            return try await group.reduce(into: [HTTPStatus]()) { $0.append($1) }
        }
        #expect(concurrent.allSatisfy { $0 == .accepted })
        _ = try await p.stack.simulator.waitForDeliveries(count: 1, timeout: 10)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await p.stack.simulator.deliveries(since: 0).filter { $0.apnsID == envelope.context.eventID }.count == 1)
    }

    @Test func differentBytesUnderAnAcceptedEventIDAreAConflict() async throws {
        let p = try await Paired.start()
        let eventID = try EventID.generate()
        #expect(try await p.stack.submit(try p.envelope(eventID: eventID)).status == .accepted)
        expectProblem(try await p.stack.submit(try p.envelope(eventID: eventID, subject: "Something else")), .conflict, "event-conflict")
    }

    @Test func anOutpostOverItsRateIsAskedToRetryLater() async throws {
        let p = try await Paired.start { $0.rateLimit = 1; $0.rateBurst = 3 }
        // Until the first refusal: on a machine that stalls, the bucket refills by one a second meanwhile.
        let started = ContinuousClock.now
        var statuses: [HTTPStatus] = []
        var refused: HTTPClient.Response?
        while refused == nil, statuses.count < 30 {
            let r = try await p.stack.submit(try p.envelope())
            statuses.append(r.status)
            if r.status != .accepted { refused = r }
        }
        let elapsed = Int((ContinuousClock.now - started).components.seconds) + 1
        #expect(statuses.prefix(3).allSatisfy { $0 == .accepted })
        #expect(statuses.filter { $0 == .accepted }.count <= 3 + elapsed,
                "\(statuses.count) submissions in \(elapsed) s with a burst of 3 and 1/s")
        #expect(refused != nil)
        if let refused {
            expectProblem(refused, .tooManyRequests, "rate-limited")
            #expect(Int(refused.headers["Retry-After"] ?? "") ?? 0 >= 1)
        }
    }

    @Test func forgedEnvelopesDoNotSpendAnOutpostsRate() async throws {
        let p = try await Paired.start { $0.rateLimit = 1; $0.rateBurst = 2 }
        let impostor = try SimulatedOutpost()
        for _ in 0..<5 {
            let forged = try impostor.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
            expectProblem(try await p.stack.submit(forged), .unauthorized, "bad_signature")
        }
        #expect(try await p.stack.submit(try p.envelope()).status == .accepted)
    }

    @Test func aPairingEndedThroughAnotherInstanceStopsIntakeAtOnce() async throws {
        let p = try await Paired.start()
        #expect(try await p.stack.submit(try p.envelope()).status == .accepted)  // the pairing is cached now
        let database = PostgresClient(configuration: try .init(url: p.stack.relayDatabaseURL), logger: .disabled)
        try await database.execute("UPDATE pairings SET state = 'ended', ended_by = 'outpost' WHERE pairing_id = \(p.pairingID)")
        await database.close()
        let late = try p.envelope()
        expectProblem(try await p.stack.submit(late), .gone, "pairing-ended")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await p.stack.simulator.deliveries(since: 0).allSatisfy { $0.apnsID != late.context.eventID })
    }

    @Test func whenAccountsIsDownIntakeAnswers503WithRetryAfter() async throws {
        let p = try await Paired.start { $0.accounts.cacheTTL = .zero }
        await p.stack.accounts.stop()
        let response = try await p.stack.submit(try p.envelope())
        expectProblem(response, .serviceUnavailable, "accounts-unavailable")
        #expect(response.headers["Retry-After"] == "5")
    }

    @Test func aBatchHeldUpByALockIsCancelledAtTheStatementTimeoutAnswered503AndLosesNothing() async throws {
        let p = try await Paired.start { $0.databaseURL = $0.databaseURL.appendingQueryItem("statement_timeout", "3000") }
        #expect(try await p.stack.submit(try p.envelope()).status == .accepted)  // the outpost's rate bucket row exists now
        let database = PostgresClient(configuration: try .init(url: p.stack.relayDatabaseURL), logger: .disabled)
        // A session sitting on the outpost's bucket row, as a stuck transaction or an operator's long statement would.
        let lock = try await HeldLock.take("SELECT 1 FROM rate_buckets FOR UPDATE", on: database)
        let envelope = try p.envelope()
        let refused = try await lock.whileHeld { try await p.stack.submit(envelope) }
        expectProblem(refused, .serviceUnavailable, "database-unavailable")
        #expect(refused.headers["Retry-After"] == "1")
        let again = try await p.stack.submit(envelope)
        #expect(again.status == .accepted)
        #expect(p.stack.relay.app.metrics.render().contains("mailwake_relay_envelopes_duplicate_total 0"),
                "the cancelled batch stored nothing, so the same bytes again are new")
        _ = try await p.stack.simulator.waitForDeliveries(count: 2, timeout: 10)
        #expect(try await p.stack.simulator.deliveries(since: 0).filter { $0.apnsID == envelope.context.eventID }.count == 1)
        await database.close()
    }

    @Test func anEnvelopeCheckedOnTheListenersThreadAnswers503WhenStorageIsReadOnly() async throws {
        let p = try await Paired.start()
        #expect(try await p.stack.submit(try p.envelope()).status == .accepted)  // the pairing and accounts answers are cached now
        let database = PostgresClient(configuration: try .init(url: p.stack.relayDatabaseURL), logger: .disabled)
        // What a standby answering for a failed primary does: every new session is read-only.
        func setReadOnly(_ on: Bool) async throws {
            let name = try await database.query("SELECT current_database()").first?.decode(String.self, at: 0) ?? ""
            try await database.execute(PostgresQuery(unsafeSQL: "ALTER DATABASE \"\(name)\" SET default_transaction_read_only = \(on)"))
            try await database.execute("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                """)
        }
        try await setReadOnly(true)
        let refused = try await p.stack.submit(try p.envelope())
        expectProblem(refused, .serviceUnavailable, "database-unavailable")
        #expect(refused.headers["Retry-After"] == "1")
        #expect(p.stack.relay.app.metrics.render().contains(#"mailwake_relay_envelope_checks_total{on="task"} 1"#),
                "only the first envelope took a task")
        try await setReadOnly(false)
        var status = HTTPStatus.serviceUnavailable
        for _ in 0..<200 where status != .accepted {
            status = try await p.stack.submit(try p.envelope()).status
            if status != .accepted { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(status == .accepted, "intake stores again once the database is writable")
        await database.close()
    }

    @Test func refusalsAreCountedByReason() async throws {
        let p = try await Paired.start()
        _ = try await p.submit(raw: Array("[]".utf8))
        let metrics = try await p.stack.send(.get, "/metrics", to: p.stack.relay.adminURL)
        #expect(metrics.text.contains(#"mailwake_relay_envelopes_refused_total{reason="malformed"} 1"#))
    }
}
