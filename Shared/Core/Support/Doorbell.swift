import Synchronization

/// Wakes a waiting worker (the relay's queue workers, the outpost's delivery
/// worker): a ring while nobody waits is remembered, so none is lost.
public final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation: UInt64 = 0
        var rings: UInt64 = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// How many times it was rung: a waiter compares it to tell a ring from a timeout.
    public var ringCount: UInt64 { state.withLock { $0.rings } }

    public func ring() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            s.rings &+= 1
            guard let w = s.waiter else {
                s.rung = true
                return nil
            }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    /// Returns after a ring, or when the calling task is cancelled (one waiter at a time).
    ///
    /// Arms no timer: a loop that must also wake on a schedule rings the bell
    /// from one long-lived ticker instead of paying a timer per wait.
    public func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.rung || Task.isCancelled {
                        s.rung = false
                        return true
                    }
                    s.generation &+= 1
                    s.waiter = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }
    }

    /// Returns after a ring or `timeout`, whichever is first (one waiter at a time).
    public func wait(timeout: Duration) async {
        let generation: UInt64? = state.withLock { s in
            if s.rung {
                s.rung = false
                return nil
            }
            s.generation &+= 1
            return s.generation
        }
        guard let generation else { return }
        let timer = Task { [self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
                guard s.generation == generation else { return nil }
                guard let w = s.waiter else {
                    s.rung = true  // not waiting yet: the wait sees this and returns
                    return nil
                }
                s.waiter = nil
                return w
            }
            waiter?.resume()
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.rung || s.generation != generation || Task.isCancelled {
                    s.rung = false
                    return true
                }
                s.waiter = c
                return false
            }
            if resumeNow { c.resume() }
        }
        timer.cancel()
    }
}
