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

@Suite("Relay: delivery to APNs (PROTOCOL §11)", .serialized, .awaitedCleanup)
struct DeliveryTests {
    typealias Paired = IntakeTests.Paired

    /// Polls the status endpoint until the delivery is final.
    static func finalStatus(_ p: Paired, _ eventID: String, timeout: Double = 60) async throws -> DeliveryStatusReport {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let response = try await p.stack.send(.get, "/v1/envelopes/\(p.pairingID)/\(eventID)", signer: p.outpost.identity)
            let report = response.status == .ok ? try DeliveryStatusReport.decode(response.body) : nil
            if let report, [.sent, .failed, .expired].contains(report.status) { return report }
            guard ContinuousClock.now < deadline else {
                throw TestHarnessError("delivery \(eventID) still \(response.text) after \(timeout) s")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Makes APNs answer `status`/`reason` for the device (`times` requests,
    /// or all), submits one notification and waits for its final status.
    static func deliverOne(_ p: Paired, apnsAnswers status: Int, _ reason: String, times: Int? = nil,
                           timeout: Double = 20) async throws -> (eventID: String, final: DeliveryStatusReport) {
        try await p.stack.simulator.setBehaviour(token: p.device.apnsToken, status: status, reason: reason, times: times)
        let envelope = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        #expect(try await p.stack.submit(envelope).status == .accepted)
        return (envelope.context.eventID, try await finalStatus(p, envelope.context.eventID, timeout: timeout))
    }

    /// Both APNs transports (`APNS_CLIENT`) send the same request.
    @Test(arguments: RelayConfiguration.APNs.Engine.allCases)
    func aPairedDeviceReceivesAnAPNsRequestWhoseEnvelopeItOpens(engine: RelayConfiguration.APNs.Engine) async throws {
        let p = try await Paired.start { $0.apns.engine = engine }
        let content = SimulatedOutpost.sampleContent()
        let envelope = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: content)
        #expect(try await p.stack.submit(envelope).status == .accepted)
        let delivery = try #require(try await p.stack.simulator.waitForDeliveries(count: 1, timeout: 10).first)
        #expect(delivery.status == 200)
        #expect(delivery.deviceToken == p.device.apnsToken)
        #expect(delivery.pushType == "alert")
        #expect(delivery.topic == RelayInstance.bundleID)
        #expect(delivery.apnsID == envelope.context.eventID)
        #expect(delivery.collapseID == envelope.context.eventID)
        #expect(delivery.priority == 10)
        #expect(delivery.expiration == Int64(envelope.context.iat) + 86400)
        #expect(delivery.jwtKeyID == p.stack.simulator.keyID)
        #expect(delivery.jwtIssuer == p.stack.simulator.teamID)
        let opened = try p.device.open(payload: delivery.payload, outpostKey: p.outpost.publicKey, pairingID: p.pairingID)
        #expect(opened == content)
        let aps = (try JSONSerialization.jsonObject(with: Data(delivery.payload.utf8)) as? [String: Any])?["aps"] as? [String: Any]
        #expect((aps?["alert"] as? [String: Any])?["title"] as? String == "New mail")
        #expect(aps?["mutable-content"] as? Int == 1)
        let status = try await Self.finalStatus(p, envelope.context.eventID)
        #expect(status.status == .sent)
        #expect(status.apnsStatus == 200)
        #expect(status.attempts == 1)
    }

    @Test func deliveryOutcomesReachAccountsDiagnostics() async throws {
        let p = try await Paired.start()
        let envelope = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        _ = try await p.stack.submit(envelope)
        _ = try await Self.finalStatus(p, envelope.context.eventID)
        let deadline = ContinuousClock.now + .seconds(15)
        var recorded: [(String, String)] = []
        while recorded.isEmpty, ContinuousClock.now < deadline {
            recorded = try await p.stack.accounts.app.database.query(
                "SELECT event_id, status FROM delivery_diagnostics WHERE device_id = \(p.device.id)").map { try $0.decode((String,
                    String).self) }
            if recorded.isEmpty { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(recorded.count == 1)
        #expect(recorded.first?.0 == envelope.context.eventID)
        #expect(recorded.first?.1 == "sent")
    }

    @Test func aLiveActivityStartGoesToThePushToStartTokenAndAnUpdateToTheActivityToken() async throws {
        let p = try await Paired.start()
        let now = UInt64(Date().timeIntervalSince1970)
        let start = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent(),
                                           kind: .liveActivity,
                                           activity: ActivityInfo(id: "code-1", event: .start, timestamp: now, staleDate: now + 600))
        #expect(try await p.stack.submit(start).status == .accepted)
        let first = try #require(try await p.stack.simulator.waitForDeliveries(count: 1, timeout: 10).first)
        #expect(first.deviceToken == p.device.pushToStartToken)
        #expect(first.pushType == "liveactivity")
        #expect(first.topic == RelayInstance.bundleID + ".push-type.liveactivity")
        let aps =
            try #require((try JSONSerialization.jsonObject(with: Data(first.payload.utf8)) as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["event"] as? String == "start")
        #expect(aps["attributes-type"] as? String == "MailwakeCodeAttributes")
        #expect(aps["stale-date"] as? Int == Int(now + 600))
        #expect(try p.device.open(payload: first.payload, outpostKey: p.outpost.publicKey, pairingID: p.pairingID).code == "482913")

        let activityToken = Hex.encode(try SecureRandom.bytes(32))
        try await p.device.registerActivityToken(at: p.stack.accounts, client: p.stack.client, activityID: "code-1", token: activityToken)
        let end = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent(),
                                         kind: .liveActivity,
                                         activity: ActivityInfo(id: "code-1", event: .end, timestamp: now + 1, dismissalDate: now + 60))
        #expect(try await p.stack.submit(end).status == .accepted)
        let second = try #require(try await p.stack.simulator.waitForDeliveries(count: 2, timeout: 10).last)
        #expect(second.deviceToken == activityToken)
        let endAPS = (try JSONSerialization.jsonObject(with: Data(second.payload.utf8)) as? [String: Any])?["aps"] as? [String: Any]
        #expect(endAPS?["event"] as? String == "end")
        #expect(endAPS?["attributes-type"] == nil)
    }

    @Test func anUnregisteredTokenFailsTheDeliveryAndIsReportedToAccounts() async throws {
        let p = try await Paired.start()
        let (_, status) = try await Self.deliverOne(p, apnsAnswers: 410, "Unregistered")
        #expect(status.status == .failed)
        #expect(status.apnsStatus == 410)
        #expect(status.apnsReason?.rawValue == "Unregistered")
        #expect(status.attempts == 1)
        let deadline = ContinuousClock.now + .seconds(10)
        var token: String? = p.device.apnsToken
        while token != nil, ContinuousClock.now < deadline {
            let row = try await p.stack.accounts.app.database.query("""
                                                                    SELECT apns_token FROM devices WHERE device_id = \
                                                                    \(p.device.id)
                                                                    """).single()
            token = try row.decode(String.self, at: 0).isEmpty ? nil : "still set"
            if token != nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(token == nil, "accounts cleared the token APNs called unregistered")
    }

    @Test(arguments: ["BadDeviceToken", "DeviceTokenNotForTopic"])
    func aTokenAPNsCallsBadFailsTheDeliveryAndIsReported(reason: String) async throws {
        let p = try await Paired.start()
        let (_, status) = try await Self.deliverOne(p, apnsAnswers: 400, reason)
        #expect(status.status == .failed)
        #expect(status.apnsReason?.rawValue == reason)
    }

    @Test(arguments: [(429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable")])
    func overloadAndServerErrorsAreRetriedUntilSent(status: Int, reason: String) async throws {
        let p = try await Paired.start()
        let (eventID, final) = try await Self.deliverOne(p, apnsAnswers: status, reason, times: 2, timeout: 30)
        #expect(final.status == .sent)
        #expect(final.attempts == 3)
        let seen = try await p.stack.simulator.deliveries(since: 0).filter { $0.apnsID == eventID }
        #expect(seen.map(\.status) == [status, status, 200])
    }

    @Test func aDeliveryIntakeHandedOverIsSentWithoutATaskAndItsRetryOnOne() async throws {
        let p = try await Paired.start()
        // Once one delivery is sent the provider token is in memory: just after start it may still be on its way from
        // the shared table, and a push that must wait for it is sent on a task (CI under AddressSanitizer saw that).
        let first = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        #expect(try await p.stack.submit(first).status == .accepted)
        #expect(try await Self.finalStatus(p, first.context.eventID).status == .sent)
        let metrics = p.stack.relay.app.metrics
        func count(_ name: String) -> Double { metrics.sample(name) ?? 0 }
        let callback = #"mailwake_relay_delivery_attempts_total{on="callback"}"#
        let task = #"mailwake_relay_delivery_attempts_total{on="task"}"#
        let sent = #"mailwake_relay_deliveries_total{status="sent"}"#
        let before = (callback: count(callback), task: count(task), sent: count(sent))

        let (_, final) = try await Self.deliverOne(p, apnsAnswers: 503, "ServiceUnavailable", times: 1, timeout: 30)
        #expect(final.status == .sent)
        #expect(final.attempts == 2)
        #expect(count(callback) - before.callback == 1, "\(metrics.render())")
        #expect(count(task) - before.task == 1, "the retry was claimed from the queue")
        #expect(count(sent) - before.sent == 1)
    }

    @Test func aRetriedDeliveryKeepsItsPayloadAndAFinishedOneDropsIt() async throws {
        let p = try await Paired.start()
        let database = PostgresClient(configuration: try .init(url: p.stack.relayDatabaseURL), logger: .disabled)
        defer { Task { await database.close() } }
        func payloadBytes(_ eventID: String) async throws -> (status: String, bytes: Int) {
            let (status,
                 bytes) = try await database.query("""
                                                   SELECT status, octet_length(payload) FROM deliveries WHERE event_id = \
                                                   \(eventID)
                                                   """).single()
                .decode((String, Int32).self)
            return (status, Int(bytes))
        }
        // Held at the first 503 with a long backoff: queued, payload kept for the retry.
        try await p.stack.simulator.setBehaviour(token: p.device.apnsToken, status: 503, reason: "ServiceUnavailable", times: 1)
        let envelope = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        #expect(try await p.stack.submit(envelope).status == .accepted)
        _ = try await p.stack.simulator.waitForDeliveries(count: 1, timeout: 10)
        var row = try await payloadBytes(envelope.context.eventID)
        let deadline = ContinuousClock.now + .seconds(10)
        while row.status == "sending", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            row = try await payloadBytes(envelope.context.eventID)
        }
        #expect(row.status == "queued")
        #expect(row.bytes > 100, "a delivery waiting for its retry keeps its payload")
        let final = try await Self.finalStatus(p, envelope.context.eventID, timeout: 30)
        #expect(final.status == .sent)
        #expect(try await payloadBytes(envelope.context.eventID) == ("sent", 0))
    }

    @Test func aPayloadAPNsCallsTooLargeFailsWithoutRetry() async throws {
        let p = try await Paired.start()
        let (_, final) = try await Self.deliverOne(p, apnsAnswers: 413, "PayloadTooLarge")
        #expect(final.status == .failed)
        #expect(final.attempts == 1)
    }

    @Test(arguments: RelayConfiguration.APNs.Engine.allCases)
    func anExpiredProviderTokenIsRenewedAndTheDeliveryRetried(engine: RelayConfiguration.APNs.Engine) async throws {
        // The shared token is renewed on an expiry refusal once it is 20 minutes old (a younger one is kept,
        // as Apple would throttle its replacement: ProviderTokenLeaseTests): the relay's token clock and the
        // simulator's move 21 minutes after the first push.
        let clock = try ScratchClockFile()
        let p = try await Paired.start {
            $0.apns.testClockFile = clock.path
            $0.apns.engine = engine
        }
        #expect(try await p.stack.submit(try p.envelope()).status == .accepted)
        _ = try await p.stack.simulator.waitForDeliveries(count: 1, timeout: 10)
        try clock.set(offsetSeconds: 1260)
        try await p.stack.simulator.setClock(offsetSeconds: 1260)
        let (eventID, final) = try await Self.deliverOne(p, apnsAnswers: 403, "ExpiredProviderToken", times: 1)
        #expect(final.status == .sent)
        let attempts = try await p.stack.simulator.deliveries(since: 0).filter { $0.apnsID == eventID }
        #expect(attempts.count == 2)
        #expect(attempts.count == 2 && attempts[0].connection != attempts[1].connection, "the retry went over a new connection")
        let metrics = try await p.stack.send(.get, "/metrics", to: p.stack.relay.adminURL).text
        #expect(metrics.contains("mailwake_relay_apns_token_refreshes_total 2"))
    }

    // Event-driven rather than timed: the first 503 is awaited at APNs and its
    // retry in the queue, then the relay's clock moves past the deadline.
    @Test func aDeliveryThatKeepsFailingExpiresAtItsDeadline() async throws {
        let clock = MovableClock()
        let p = try await Paired.start(clock: clock) { $0.maxEnvelopeAge = 60 }
        try await p.stack.simulator.setBehaviour(token: p.device.apnsToken, status: 503, reason: "ServiceUnavailable", times: nil,
                                                 latencyMS: nil)
        let envelope = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        #expect(try await p.stack.submit(envelope).status == .accepted)
        let first = try await p.stack.simulator.waitForDeliveries(count: 1, timeout: 30)
        #expect(first.first?.status == 503)
        try await p.stack.waitUntilQueuedForRetry(envelope.context.eventID)
        clock.advance(by: .seconds(61))
        let final = try await Self.finalStatus(p, envelope.context.eventID, timeout: 30)
        #expect(final.status == .expired)
        #expect(final.apnsStatus == 503, "an expired delivery shows the last answer APNs gave")
    }

    @Test func streamsRefusedByGOAWAYAreRetriedOnANewConnection() async throws {
        let p = try await Paired.start()
        try await p.stack.simulator.configure(latencyMS: nil, rates: nil, goawayAfter: 7, maxConcurrentStreams: nil)
        var events: [String] = []
        for _ in 0..<60 {
            let envelope = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
            events.append(envelope.context.eventID)
            #expect(try await p.stack.submit(envelope).status == .accepted)
        }
        for event in events {
            #expect(try await Self.finalStatus(p, event, timeout: 30).status == .sent)
        }
        let connections = Set(try await p.stack.simulator.deliveries(since: 0).map(\.connection))
        #expect(connections.count >= 60 / 7)
    }

    @Test func aLowStreamLimitAtAPNsStillDeliversEverything() async throws {
        let p = try await Paired.start()
        try await p.stack.simulator.configure(latencyMS: 20, rates: nil, goawayAfter: nil, maxConcurrentStreams: 4)
        let envelopes = try (0..<150).map { _ in try p.outpost.envelope(for: p.device, pairingID: p.pairingID,
                                                                        content: SimulatedOutpost.sampleContent()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for envelope in envelopes { group.addTask { let status = try await p.stack.submit(envelope)
                .status; #expect(status == .accepted) } }
            try await group.waitForAll()
        }
        for envelope in envelopes {
            #expect(try await Self.finalStatus(p, envelope.context.eventID, timeout: 60).status == .sent)
        }
    }

    @Test func theStatusEndpointIsForThePairingsOutpostOnly() async throws {
        let p = try await Paired.start()
        let envelope = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        _ = try await p.stack.submit(envelope)
        expectProblem(try await p.stack.send(.get, "/v1/envelopes/\(p.pairingID)/\(envelope.context.eventID)",
                                             signer: try P256.Signing.PrivateKey()),
                      .unauthorized, "wrong_key")
        expectProblem(try await p.stack.send(.get, "/v1/envelopes/\(p.pairingID)/\(try EventID.generate())", signer: p.outpost.identity),
                      .notFound, "envelope-not-found")
    }
}
