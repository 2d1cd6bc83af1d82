import Synchronization

/// Suspends until `cancel()` is called, once, whichever comes first.
final class CancellationWaiter: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Void, Never>)
        case cancelled
    }

    private let state = Mutex<State>(.idle)

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if case .cancelled = s { return true }
                s = .waiting(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    func cancel() {
        let c = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s = .cancelled }
            if case .waiting(let c) = s { return c }
            return nil
        }
        c?.resume()
    }
}
