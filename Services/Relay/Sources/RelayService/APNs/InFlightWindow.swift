import Synchronization

/// How many APNs requests may be in flight, adapted to what APNs tolerates
/// (additive increase, multiplicative decrease): it grows by one for every
/// `growthStep` successes and halves, at most once per `backoffInterval`, when
/// APNs refuses streams, closes connections or answers 429/503.
final class InFlightWindow: Sendable {
    private struct State {
        var limit: Int
        var inFlight = 0
        var successes = 0
        var lastDecrease: ContinuousClock.Instant?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    let minimum: Int
    let maximum: Int
    let growthStep: Int
    let backoffInterval: Duration
    private let state: Mutex<State>

    /// - Parameters:
    ///   - initial: the starting limit.
    ///   - minimum: the limit never drops below this.
    ///   - maximum: nor grows above this (`APNS_MAX_IN_FLIGHT`).
    init(initial: Int, minimum: Int = 8, maximum: Int, growthStep: Int = 4, backoffInterval: Duration = .milliseconds(200)) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
        self.growthStep = growthStep
        self.backoffInterval = backoffInterval
        state = Mutex(State(limit: min(max(initial, minimum), max(minimum, maximum))))
    }

    /// The current limit.
    var limit: Int { state.withLock { $0.limit } }
    /// Requests in flight.
    var inFlight: Int { state.withLock { $0.inFlight } }
    /// Free slots now.
    var available: Int { state.withLock { max(0, $0.limit - $0.inFlight) } }

    /// Waits for a slot and takes it.
    func acquire() async {
        if state.withLock({ s -> Bool in
            guard s.inFlight < s.limit else { return false }
            s.inFlight += 1
            return true
        }) { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let takenNow = state.withLock { s -> Bool in
                if s.inFlight < s.limit {
                    s.inFlight += 1
                    return true
                }
                s.waiters.append(c)
                return false
            }
            if takenNow { c.resume() }
        }
    }

    /// Takes up to `count` more slots if free now, without waiting.
    func tryAcquire(upTo count: Int) -> Int {
        state.withLock { s in
            let n = max(0, min(count, s.limit - s.inFlight))
            s.inFlight += n
            return n
        }
    }

    /// Returns slots that were taken but not used (no effect on the limit).
    func giveBack(_ count: Int) {
        guard count > 0 else { return }
        let wake: [CheckedContinuation<Void, Never>] = state.withLock { s in
            s.inFlight -= count
            return Self.wakeWaiters(&s)
        }
        for c in wake { c.resume() }
    }

    private static func wakeWaiters(_ s: inout State) -> [CheckedContinuation<Void, Never>] {
        var woken: [CheckedContinuation<Void, Never>] = []
        while s.inFlight < s.limit, !s.waiters.isEmpty {
            s.inFlight += 1
            woken.append(s.waiters.removeFirst())
        }
        return woken
    }

    /// Adapts the limit to one request's outcome while its slot stays taken (the holder sends again with it).
    func record(congested: Bool) {
        let wake: [CheckedContinuation<Void, Never>] = state.withLock { s in
            adapt(&s, congested: congested)
            return Self.wakeWaiters(&s)
        }
        for c in wake { c.resume() }
    }

    /// Runs `body` with one slot the caller took (`acquire`) and gives the slot back when `body` returns, whatever
    /// path it took: the one owner of the slot. Each request `body` sends with it adapts the limit (`Slot.sent`).
    func holdingSlot<T>(_ body: (inout Slot) async -> T) async -> T {
        var slot = Slot(window: self)
        let value = await body(&slot)
        giveBack(1)
        return value
    }

    /// A taken slot, as its holder sees it.
    struct Slot {
        let window: InFlightWindow

        /// The holder sent a request with the slot and met back-pressure or not (429, 503, a refused stream):
        /// the limit adapts now, while the slot stays held.
        mutating func sent(congested: Bool) { window.record(congested: congested) }
    }

    /// Adapts the limit to one outcome (additive increase, multiplicative decrease).
    private func adapt(_ s: inout State, congested: Bool) {
        if congested {
            let now = ContinuousClock.now
            if s.lastDecrease.map({ now - $0 >= backoffInterval }) ?? true {
                s.limit = max(minimum, s.limit / 2)
                s.lastDecrease = now
            }
            s.successes = 0
        } else {
            s.successes += 1
            if s.successes >= growthStep, s.limit < maximum {
                s.limit += 1
                s.successes = 0
            }
        }
    }
}
