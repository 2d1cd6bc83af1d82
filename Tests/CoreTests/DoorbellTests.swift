import MailwakeCore
import Testing

@Suite struct DoorbellTests {
    @Test func aRingBeforeTheWaitIsRemembered() async {
        let bell = Doorbell()
        bell.ring()
        await bell.wait()
        #expect(bell.ringCount == 1)
    }

    @Test func aWaitReturnsWhenTheBellRings() async {
        let bell = Doorbell()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await bell.wait() }
            // Whether the waiter is already suspended or not yet waiting, one ring lets it return.
            bell.ring()
            await group.waitForAll()  // returns only once the waiter has
        }
        #expect(bell.ringCount == 1)
    }

    @Test func cancellingTheWaitingTaskEndsTheWait() async {
        let bell = Doorbell()
        let waiting = Task { await bell.wait() }
        waiting.cancel()
        await waiting.value  // returns: without the cancellation handler this would never finish
        #expect(bell.ringCount == 0)
    }

    @Test func aTimedWaitAfterAnUntimedOneStillTimesOut() async {
        let bell = Doorbell()
        bell.ring()
        await bell.wait()
        await bell.wait(timeout: .milliseconds(10))
        #expect(bell.ringCount == 1)
    }
}
