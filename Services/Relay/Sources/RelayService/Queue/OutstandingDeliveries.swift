import MailwakeCore
import Synchronization

/// Deliveries the worker sent without a task of its own, from the push until
/// their outcome is recorded: what the worker waits for when it stops.
final class OutstandingDeliveries: Sendable {
    private let count = Mutex(0)
    /// Rung when the count drops to zero.
    private let none = Doorbell()

    /// Deliveries outstanding now.
    var current: Int { count.withLock { $0 } }

    /// One more delivery sent without a task.
    func begin() { count.withLock { $0 += 1 } }

    /// One delivery's outcome recorded (or given up on).
    func end() {
        let zero = count.withLock { n -> Bool in
            n -= 1
            return n == 0
        }
        if zero { none.ring() }
    }

    /// Returns when none is outstanding or `timeout` has passed, whichever is first. Waits even when the calling
    /// task is cancelled (the worker calls this while stopping).
    func drained(within timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        await Task.detached { [self] in
            while current > 0, ContinuousClock.now < deadline {
                await none.wait(timeout: deadline - ContinuousClock.now)
            }
        }.value
    }
}
