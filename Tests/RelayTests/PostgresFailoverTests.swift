import Foundation
import MailwakeCore
import MailwakeProtocol
import StackSupport
import TestSupport
import Testing

/// The relay and accounts on a primary with a synchronous standby, reached
/// through a multi-host URL (`target_session_attrs=read-write`), while the
/// primary is SIGKILLed and the standby promoted (`pg_ctl promote`, what
/// Patroni does; Patroni and etcd themselves are too heavy for the test machine).
@Suite("Relay: PostgreSQL failover to a synchronous standby", .serialized, .awaitedCleanup)
struct PostgresFailoverTests {
    @Test func nothingAcknowledgedIsLostWhenThePrimaryDiesAndTheStandbyIsPromoted() async throws {
        let pair = try await PostgresTestReplication.start()
        AwaitedCleanup.register { await Blocking.run { pair.stop() } }  // waits for both servers and removes their directories
        let stack = try await RelayStack.start(postgres: pair.clients)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let pairingID = try await stack.pair(outpost, device)
        let envelopes = try (0..<600).map { _ in try outpost.envelope(for: device, pairingID: pairingID,
                                                                      content: SimulatedOutpost.sampleContent()) }
        let load = try EnvelopeLoad(url: stack.relay.url)
        let running = Task { await load.run(envelopes, concurrency: 6, deadline: ContinuousClock.now + .seconds(240)) }
        while load.acknowledgedEvents.count < 150 { try await Task.sleep(for: .milliseconds(10)) }

        await pair.killPrimary()
        // Every process of the primary is gone (reaped) from here on: what is sent later cannot commit there.
        let killedAt = ContinuousClock.now
        // No primary: intake answers errors, which the outposts send again.
        let refusalsDeadline = ContinuousClock.now + .seconds(60)
        while load.answers.filter({ $0.sentAt > killedAt && !$0.isAcknowledged }).count < 12 {
            guard ContinuousClock.now < refusalsDeadline else { throw TestHarnessError("the relay answered nothing after the " +
                                                                                       "primary died") }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await pair.standbyIsInRecovery(), "the standby is still a standby when promotion starts")
        let promotingAt = ContinuousClock.now
        let withoutPrimary = load.answers.filter { $0.sentAt > killedAt && $0.answeredAt < promotingAt }
        let acknowledgedWithoutPrimary = withoutPrimary.filter(\.isAcknowledged).count
        #expect(acknowledgedWithoutPrimary == 0, "nothing sent while there was no primary is answered 202")
        try await pair.promoteStandby()
        let promotedAt = ContinuousClock.now
        await running.value

        let acknowledged = load.acknowledgedEvents
        #expect(acknowledged.count == envelopes.count, "every envelope is answered 202 once the standby is promoted")
        let sent = try await QueueTests.waitUntilSent(stack.simulator, acknowledged, timeout: 120)
        let lost = acknowledged.subtracting(sent.keys)
        #expect(lost.isEmpty, "\(lost.count) envelopes answered 202 never reached APNs")
        // What the device opens, deduplicated by event id as the App does.
        var opened: [String: Int] = [:]
        for delivery in try await stack.simulator.deliveries(since: 0) where delivery.status == 200
            && delivery.deviceToken == device.apnsToken {
            _ = try device.open(payload: delivery.payload, outpostKey: outpost.publicKey, pairingID: pairingID)
            opened[try SimulatedDevice.envelope(inPayload: delivery.payload).context.eventID, default: 0] += 1
        }
        #expect(acknowledged.isSubset(of: Set(opened.keys)), "the device opens every acknowledged envelope")
        #expect(Set(opened.keys).isSubset(of: Set(envelopes.map(\.context.eventID))), "the device opens only envelopes that were sent")
        try await Self.waitForLog(stack.relay.logs, "postgres listener reconnected")

        let answers = load.answers
        let refused = answers.filter { !$0.isAcknowledged }
        let firstAfterKill = answers.filter { $0.sentAt > killedAt && $0.isAcknowledged }.map(\.answeredAt).min()
        let firstAfterPromotion = answers.filter { $0.sentAt > promotedAt && $0.isAcknowledged }.map(\.answeredAt).min()
        let statuses = Dictionary(grouping: refused, by: { $0.status.map(String.init) ?? "no-answer" }).mapValues(\.count)
        print("postgres-failover: \(envelopes.count) envelopes, \(acknowledged.count) answered 202, \(lost.count) lost, "
              + "\(sent.values.filter { $0 > 1 }.count) pushed more than once at APNs, \(opened.count) distinct at the device, "
              + "\(refused.count) refused answers " +
                "\(statuses.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")), "
              + "kill to first 202: \(Self.ms(firstAfterKill.map { $0 - killedAt })) (promotion started " +
                "\(Self.ms(promotingAt - killedAt)) after the kill), promotion took \(Self.ms(promotedAt - promotingAt)), "
              + "first 202 sent after promotion answered \(Self.ms(firstAfterPromotion.map { $0 - promotedAt })) after it")
    }

    static func ms(_ d: Duration?) -> String {
        guard let d else { return "none" }
        return "\(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000) ms"
    }

    /// Waits until a log line contains `text`; throws after 60 s.
    static func waitForLog(_ logs: MemoryLogSink, _ text: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !logs.lines.contains(where: { $0.contains(text) }) {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("no log line with \"\(text)\" within 60 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
