import Foundation

/// A flag a blocking thread can sleep on: `set()` from any thread ends every
/// current and later `sleep`.
// Safe to share: `stopped` is only read or written with `condition` locked.
final class StopSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false

    func set() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    var isSet: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// Sleeps for `duration`; true when stopped (at once, or during the sleep).
    func sleep(_ duration: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while !stopped, condition.wait(until: deadline) {}
        return stopped
    }
}
