@testable import RelayService
import Synchronization
import Testing

/// Intake's hand-off to this instance's worker: queued for the worker's loop, or sent at once by the worker's sender.
@Suite("Relay: hand-off from intake to the worker")
struct DeliveryHandoffTests {
    static func delivery(_ n: Int) -> ClaimedDelivery {
        ClaimedDelivery(pairingID: "p", eventID: "e\(n)", deviceID: "d", outpostID: "o", outpostKey: [], kind: .envelope(.notification),
                        payload: [], iat: 0, deadline: 0, attempts: 1, acceptedMS: 0, pairingActive: true)
    }

    @Test func aDeliveryTheSenderDeclinesWaitsForTheWorkersLoop() {
        let handoff = DeliveryHandoff(capacity: 4)
        handoff.sendDirectly { $0.eventID != "e1" }
        for n in 0..<3 {
            #expect(handoff.reserve())
            handoff.hand(Self.delivery(n))
        }
        let (queued, _) = handoff.take(max: 10)
        #expect(queued.map(\.eventID) == ["e1"])
        #expect(handoff.reserve() && handoff.reserve() && handoff.reserve(), "the sent ones gave their places back")
    }

    @Test func withoutASenderEveryDeliveryWaitsForTheWorkersLoop() {
        let handoff = DeliveryHandoff(capacity: 4)
        handoff.sendDirectly { _ in true }
        handoff.sendDirectly(with: nil)
        #expect(handoff.reserve())
        handoff.hand(Self.delivery(0))
        #expect(handoff.take(max: 10).deliveries.count == 1)
    }

    /// The first version kept the sender closure in a `Mutex` directly: every hand-off wrapped it in two more
    /// reabstraction thunks, and a call through them overflowed the stack after some ten thousand deliveries.
    @Test func theSenderStaysOneCallDeepHoweverManyDeliveriesItTakes() {
        let handoff = DeliveryHandoff(capacity: 1)
        let sent = Atomic(0)
        handoff.sendDirectly { _ in
            sent.add(1, ordering: .relaxed)
            return true
        }
        for n in 0..<200_000 {
            #expect(handoff.reserve())
            handoff.hand(Self.delivery(n))
        }
        #expect(sent.load(ordering: .relaxed) == 200_000)
    }
}
