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

@Suite("Relay: outpost heartbeats and silence alerts (PROTOCOL §14)", .serialized, .awaitedCleanup)
struct HeartbeatTests {
    typealias Paired = IntakeTests.Paired

    /// Posts a heartbeat signed by `outpost` (to another instance when `base` is given).
    static func beat(_ stack: RelayStack, _ outpost: SimulatedOutpost, mailboxes: Int = 2, failing: Int = 0, to base: String? = nil,
                     signer: P256.Signing.PrivateKey? = nil) async throws -> HTTPClient.Response {
        try await stack.send(.post, "/v1/outposts/\(outpost.id)/heartbeat",
                             body: Array(#"{"mailboxes":\#(mailboxes),"failing":\#(failing)}"#.utf8),
                             signer: signer ?? outpost.identity, to: base)
    }

    /// The `mw_sys` object of an APNs payload, or nil.
    static func system(_ delivery: APNsSimulatorProcess.Delivery) -> [String: Any]? {
        ((try? JSONSerialization.jsonObject(with: Data(delivery.payload.utf8))) as? [String: Any])?["mw_sys"] as? [String: Any]
    }

    /// Waits until the simulator holds `count` alerts of `type` and returns them (every delivery is read, so more than `count` shows).
    static func waitForAlerts(_ stack: RelayStack, _ type: String, count: Int,
                              timeout: Double = 30) async throws -> [APNsSimulatorProcess.Delivery] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let found = try await stack.simulator.deliveries().filter { system($0)?["type"] as? String == type }
            if found.count >= count { return found }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("\(found.count) of \(count) \(type) alerts within " +
                                                                               "\(timeout) s") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A second relay instance on the same database (both run the silence watch).
    static func secondInstance(_ stack: RelayStack, clock: MovableClock? = nil,
                               adjust: (inout RelayConfiguration) -> Void) async throws -> RelayInstance {
        var configuration = RelayInstance.configuration(databaseURL: stack.relayDatabaseURL, accounts: stack.accounts,
                                                        simulator: stack.simulator,
                                                        instanceName: "relay-b")
        adjust(&configuration)
        let b = try await RelayInstance.start(configuration, clockMS: clock?.closure)
        AwaitedCleanup.register { await b.stop() }
        return b
    }

    /// Silence comes from moving both instances' clock, not from waiting: on a loaded machine the beats of the second
    /// half may lie seconds apart, and a real-time silence that short would fire again between them.
    @Test func silenceBackAndFailingAlertEachPairedDeviceExactlyOnceAcrossTwoInstances() async throws {
        let silence: Int64 = 60
        let clock = MovableClock()
        let p = try await Paired.start(clock: clock) { $0.outpostSilence = silence }
        let second = try await p.stack.registeredDevice()
        _ = try await p.stack.pair(p.outpost, second)
        let b = try await Self.secondInstance(p.stack, clock: clock) { $0.outpostSilence = silence }
        let tokens = Set([p.device.apnsToken, second.apnsToken])

        let beatAt = Int64(Date().timeIntervalSince1970)
        #expect(try await Self.beat(p.stack, p.outpost).status == .noContent)
        clock.advance(by: .seconds(silence + 1))
        // Silence: one outpost-silent per device, from whichever instance saw it first.
        let started = ContinuousClock.now
        let silent = try await Self.waitForAlerts(p.stack, "outpost-silent", count: 2, timeout: Double(silence) + 30)
        #expect(ContinuousClock.now - started < .seconds(silence + 60))
        #expect(Set(silent.compactMap(\.deviceToken)) == tokens)
        for alert in silent {
            #expect(alert.status == 200)
            #expect(alert.pushType == "alert")
            #expect(alert.topic == RelayInstance.bundleID)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(alert.payload.utf8)) as? [String: Any])
            #expect(object["mw"] == nil)
            let aps = try #require(object["aps"] as? [String: Any])
            #expect((aps["alert"] as? [String: Any])?["title"] as? String == "Mailwake")
            #expect(((aps["alert"] as? [String: Any])?["body"] as? String)?.hasPrefix("Your outpost has not checked in since ") == true)
            #expect(aps["mutable-content"] as? Int == 1)
            let sys = try #require(Self.system(alert))
            #expect(sys["v"] as? Int == 1)
            #expect(sys["outpost_id"] as? String == p.outpost.id)
            #expect(abs(((sys["since"] as? Int).map(Int64.init) ?? 0) - beatAt) <= 1)
        }
        // Back (through the other instance): one outpost-back per device, and still one outpost-silent each.
        #expect(try await Self.beat(p.stack, p.outpost, to: b.url).status == .noContent)
        let back = try await Self.waitForAlerts(p.stack, "outpost-back", count: 2)
        #expect(Set(back.compactMap(\.deviceToken)) == tokens)
        #expect(try await Self.waitForAlerts(p.stack, "outpost-silent", count: 2).count == 2)
        // Failing rises from 0 (one alert each), stays up (none), falls to 0 and rises again (one each).
        #expect(try await Self.beat(p.stack, p.outpost, failing: 1).status == .noContent)
        #expect(try await Self.beat(p.stack, p.outpost, failing: 2, to: b.url).status == .noContent)
        #expect(try await Self.beat(p.stack, p.outpost, failing: 0).status == .noContent)
        #expect(try await Self.beat(p.stack, p.outpost, failing: 3, to: b.url).status == .noContent)
        let failing = try await Self.waitForAlerts(p.stack, "mailbox-failing", count: 4)
        #expect(failing.compactMap { Self.system($0)?["failing"] as? Int }.sorted() == [1, 1, 3, 3])
        #expect(!failing.contains { $0.payload.contains("personal") || $0.payload.contains("INBOX") })
        #expect(try await Self.waitForAlerts(p.stack, "outpost-back", count: 2).count == 2)
        let rows = try await p.stack.relay.app.database.query("SELECT count(*) FROM deliveries WHERE kind = 'system'")
            .single().decode(Int64.self, at: 0)
        #expect(rows == 8)
    }

    @Test func anAlertRespectsTheDevicesEntitlement() async throws {
        let p = try await Paired.start(trialDays: 0)
        #expect(try await Self.beat(p.stack, p.outpost, failing: 1).status == .noContent)
        let deadline = ContinuousClock.now + .seconds(20)
        var outcome: (String, String?) = ("", nil)
        while ContinuousClock.now < deadline {
            if let row = try await p.stack.relay.app.database.query("""
                SELECT status, apns_reason FROM deliveries WHERE kind = 'system' AND status IN ('sent', 'failed', 'expired')
                """).first {
                outcome = try row.decode((String, String?).self)
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(outcome.0 == "failed")
        #expect(outcome.1 == "device_not_entitled")
        #expect(try await p.stack.simulator.deliveries().isEmpty)
    }

    @Test func heartbeatsAreSignedByThePairedOutpostAndWellFormed() async throws {
        let p = try await Paired.start()
        let path = "/v1/outposts/\(p.outpost.id)/heartbeat"
        let body = Array(#"{"mailboxes":1,"failing":0}"#.utf8)
        expectProblem(try await p.stack.send(.post, path, body: body), .unauthorized, "signature-required")
        let other = try SimulatedOutpost()
        expectProblem(try await Self.beat(p.stack, p.outpost, signer: other.identity), .unauthorized, "wrong_key")
        expectProblem(try await Self.beat(p.stack, other), .notFound, "outpost-not-paired")
        expectProblem(try await Self.beat(p.stack, p.outpost, mailboxes: -1), .badRequest, "invalid-heartbeat")
        expectProblem(try await p.stack.send(.post, path, body: Array(#"{"mailboxes":1,"failing":0,"names":["INBOX"]}"#.utf8),
                                             signer: p.outpost.identity),
                      .badRequest, "malformed")
        #expect(try await Self.beat(p.stack, p.outpost).status == .noContent)
        let row = try await p.stack.relay.app.database.query("""
            SELECT mailboxes, failing, state FROM outpost_heartbeats WHERE outpost_id = \(p.outpost.id)
            """).single().decode((Int32, Int32, String).self)
        #expect(row.0 == 2 && row.1 == 0 && row.2 == "alive")
    }

    @Test func theOperatorSettingTurnsAlertsOff() async throws {
        let p = try await Paired.start { $0.silenceAlerts = false; $0.outpostSilence = 1 }
        #expect(try await Self.beat(p.stack, p.outpost, failing: 1).status == .noContent)
        // An envelope after the heartbeat is delivered; no alert came before or with it.
        let envelope = try p.envelope()
        #expect(try await p.stack.submit(envelope).status == .accepted)
        let delivered = try await p.stack.simulator.waitForDeliveries(count: 1)
        #expect(delivered.map(\.apnsID) == [envelope.context.eventID])
        #expect(try await p.stack.relay.app.database.query("SELECT 1 FROM deliveries WHERE kind = 'system'").isEmpty)
    }
}
