import MailwakeCore
import Synchronization

/// Hands deliveries from intake straight to this instance's worker.
///
/// Intake stores an accepted envelope already claimed by this instance when
/// the hand-off has room (`reserve`), then passes it here: the worker sends
/// it without a claim query, one PostgreSQL transaction fewer per envelope.
/// If the instance dies first, the claim's lease runs out and any instance
/// sends it. When the hand-off is full, intake stores the envelope queued
/// for whichever instance claims it.
final class DeliveryHandoff: Sendable {
    private struct State {
        var reserved = 0
        var items: [ClaimedDelivery] = []
        var claimRequested = true
    }

    let capacity: Int
    /// Rung for every hand-off and claim request; the worker waits on it.
    let doorbell = Doorbell()
    private let state = Mutex(State())

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

    /// Passes a stored, claimed delivery to the worker (uses the reservation).
    func hand(_ delivery: ClaimedDelivery) {
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
