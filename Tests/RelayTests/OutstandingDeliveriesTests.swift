@testable import RelayService
import Testing

/// What a stopping delivery worker waits for: the outcomes of pushes sent without a task.
@Suite("Relay: deliveries in flight without a task")
struct OutstandingDeliveriesTests {
    @Test func drainingReturnsOnceTheLastOutstandingDeliveryEnds() async {
        let outstanding = OutstandingDeliveries()
        outstanding.begin()
        outstanding.begin()
        let drained = Task { await outstanding.drained(within: .seconds(600)) }
        outstanding.end()
        #expect(outstanding.current == 1)
        outstanding.end()
        await drained.value
        #expect(outstanding.current == 0)
    }

    @Test func drainingGivesUpAtItsTimeoutWhileADeliveryIsStillOutstanding() async {
        let outstanding = OutstandingDeliveries()
        outstanding.begin()
        await outstanding.drained(within: .milliseconds(20))
        #expect(outstanding.current == 1)
    }

    @Test func aCancelledCallerStillWaitsForTheOutstandingDeliveries() async {
        let outstanding = OutstandingDeliveries()
        outstanding.begin()
        let stopping = Task { await outstanding.drained(within: .seconds(600)) }
        stopping.cancel()
        outstanding.end()
        await stopping.value
        #expect(outstanding.current == 0)
    }
}
