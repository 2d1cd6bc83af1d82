import Foundation
import MailwakeProtocol
import OutpostService
import StackSupport
import TestSupport
import Testing

@Suite("Outpost: every relay delivery reaches a final state by its deadline", .serialized, .awaitedCleanup)
struct DeliveryDeadlineTests {
    /// A delivery the outpost believes queued whose status the relay does not know (404) ends `expired` with the reason, at once.
    @Test func aDeliveryTheRelayDoesNotKnowEndsExpiredWithItsReason() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        _ = try await outpost.pair(device, through: stack)
        let historyID = try #require(try await outpost.notifier.notify(PairingAndDeliveryTests.content))
        // As if the relay had accepted it and pruned it since: it answers 404 to the status check.
        _ = try await outpost.store.database.execute("UPDATE deliveries SET status = 'queued', next_attempt_at = 0")
        try await outpost.pass.run()
        let record = try #require(try await outpost.store.deliveries(historyID: historyID).first)
        #expect(record.status == .expired)
        #expect(record.lastError?.contains("404 envelope-not-found") == true, "reason: \(record.lastError ?? "none")")
        #expect(try await stack.simulator.deliveries(since: 0).isEmpty)
    }

    /// A queued delivery whose status cannot be read is checked again, backing off, and ends `expired` once its deadline passes.
    @Test func aQueuedDeliveryWithoutAnAnswerEndsAtItsDeadline() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        _ = try await outpost.pair(device, through: stack)
        let historyID = try #require(try await outpost.notifier.notify(PairingAndDeliveryTests.content))
        let records = try await outpost.deliverAll(historyID)
        #expect(records.map(\.status) == [.sent])
        // Back to queued with the relay gone: the status check gets no answer.
        _ = try await outpost.store.database.execute("UPDATE deliveries SET status = 'queued', next_attempt_at = 0")
        await stack.relay.stop()

        try await outpost.pass.run()
        let waiting = try #require(try await outpost.store.deliveries(historyID: historyID).first)
        #expect(waiting.status == .queued, "before the deadline it is checked again")
        #expect(waiting.lastError?.contains("relay unreachable") == true, "reason: \(waiting.lastError ?? "none")")

        let expiresAt = waiting.expiresAt
        _ = try await outpost.store.database.execute("UPDATE deliveries SET next_attempt_at = 0")
        let late = DeliveryPass(store: outpost.store, client: outpost.client, clock: { expiresAt + DeliveryPass.statusGrace })
        try await late.run()
        let ended = try #require(try await outpost.store.deliveries(historyID: historyID).first)
        #expect(ended.status == .expired)
        #expect(ended.lastError == "no outcome from the relay by the deadline; last: status check failed: relay unreachable")
    }
}
