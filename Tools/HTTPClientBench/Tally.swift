import Synchronization

/// Counts a burst's answers and resumes the waiter after the last one.
final class Tally: Sendable {
    private struct State {
        var remaining: Int
        var failures: [String: Int] = [:]
        var latenciesMS: [Double] = []
        var done: CheckedContinuation<Void, Never>?
    }

    private let state: Mutex<State>

    init(count: Int) {
        var s = State(remaining: count)
        s.latenciesMS.reserveCapacity(count)
        state = Mutex(s)
    }

    /// Registers the waiter (before any request starts).
    func onDone(_ continuation: CheckedContinuation<Void, Never>) {
        let finished = state.withLock { s -> Bool in
            s.done = continuation
            return s.remaining == 0
        }
        if finished { continuation.resume() }
    }

    func record(failure: String?, ms: Double) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if let failure { s.failures[failure, default: 0] += 1 }
            s.latenciesMS.append(ms)
            s.remaining -= 1
            guard s.remaining == 0 else { return nil }
            defer { s.done = nil }
            return s.done
        }
        waiter?.resume()
    }

    /// Completed (answered or failed), failures by kind, and latencies.
    var results: (Int, [String: Int], [Double]) {
        state.withLock { s in (s.latenciesMS.count, s.failures, s.latenciesMS) }
    }
}
