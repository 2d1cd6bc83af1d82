import MailwakeCore
import Synchronization

/// Wakes long-polls waiting for a pairing's consent when it arrives at this
/// instance (consents arriving at another instance are seen by polling).
final class ConsentSignals: Sendable {
    private let waiters = Mutex<[String: [Doorbell]]>([:])

    /// Waits until `pairingID` is signalled or `timeout` passes.
    func wait(for pairingID: String, timeout: Duration) async {
        let bell = Doorbell()
        waiters.withLock { $0[pairingID, default: []].append(bell) }
        await bell.wait(timeout: timeout)
        waiters.withLock { w in
            w[pairingID]?.removeAll { $0 === bell }
            if w[pairingID]?.isEmpty == true { w[pairingID] = nil }
        }
    }

    func signal(_ pairingID: String) {
        for bell in waiters.withLock({ $0[pairingID] ?? [] }) { bell.ring() }
    }
}
