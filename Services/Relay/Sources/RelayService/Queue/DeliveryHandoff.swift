import MailwakeCore
import Synchronization

/// Hands deliveries from intake straight to this instance's worker.
///
/// Intake stores an accepted envelope already claimed by this instance when
/// the hand-off has room (`reserve`), then passes it here: the worker sends
/// it without a claim query, one PostgreSQL transaction fewer per envelope.
/// If the instance dies first, the claim's lease runs out and any instance
/// sends it. When the hand-off is full, intake stores the envelope queued
/// for whichever instance claims it. While the worker runs, a delivery it can
/// send at once (a free APNs window slot, nothing to look up) goes out from
/// the thread that handed it over, without waking the worker.
final class DeliveryHandoff: Sendable {
    private struct State {
        var reserved = 0
        var items: [ClaimedDelivery] = []
        var claimRequested = true
    }

    /// Sends a delivery now, or declines (false) and leaves it to the worker's loop.
    typealias DirectSender = @Sendable (ClaimedDelivery) -> Bool

    /// Holds the sender in the mutex as an object: a closure stored in a `Mutex` directly gained a reabstraction
    /// thunk on every `withLock` that read it (the `inout` access converts it in and out), until a call through
    /// some thousands of them overflowed the stack.
    private final class Sender: Sendable {
        let send: DirectSender
        init(_ send: @escaping DirectSender) { self.send = send }
    }

    let capacity: Int
    /// Rung for every hand-off and claim request; the worker waits on it.
    let doorbell = Doorbell()
    private let state = Mutex(State())
    private let directSender = Mutex<Sender?>(nil)

    /// - Parameter capacity: deliveries waiting for the worker at most (beyond it, intake queues in the database).
    init(capacity: Int) { self.capacity = capacity }

    /// Takes a place for one delivery; false when full.
    func reserve() -> Bool {
        state.withLock { s in
            guard s.reserved + s.items.count < capacity else { return false }
            s.reserved += 1
            return true
        }
    }

    /// Gives back a place that was not used (the envelope was a duplicate or not stored).
    func cancelReservation() {
        state.withLock { $0.reserved -= 1 }
    }

    /// Lets `sender` take handed deliveries straight away (the worker, while it runs); nil stops it.
    func sendDirectly(with sender: DirectSender?) {
        let box = sender.map(Sender.init)
        directSender.withLock { $0 = box }
    }

    /// Passes a stored, claimed delivery to the worker, or sends it now (uses the reservation).
    func hand(_ delivery: ClaimedDelivery) {
        if let sender = directSender.withLock({ $0 }), sender.send(delivery) {
            state.withLock { $0.reserved -= 1 }
            return
        }
        state.withLock { s in
            s.reserved -= 1
            s.items.append(delivery)
        }
        doorbell.ring()
    }

    /// Asks the worker to run a claim query (another instance queued work).
    func requestClaim() {
        state.withLock { $0.claimRequested = true }
        doorbell.ring()
    }

    /// Up to `max` handed deliveries, and whether a claim was requested since the last call.
    func take(max: Int) -> (deliveries: [ClaimedDelivery], claimRequested: Bool) {
        state.withLock { s in
            let n = min(max, s.items.count)
            let taken = Array(s.items.prefix(n))
            s.items.removeFirst(n)
            defer { s.claimRequested = false }
            return (taken, s.claimRequested)
        }
    }
}
