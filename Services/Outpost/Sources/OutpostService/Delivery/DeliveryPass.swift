import Foundation

/// One round of the outpost's delivery work: submit what the relay does not
/// have yet (the stored bytes, never re-encrypted), follow what it has until
/// it says how it ended, and give up on what is too old.
public struct DeliveryPass: Sendable {
    public let store: OutpostStore
    let client: OutpostRelayClient
    let clock: @Sendable () -> Int64
    /// Seconds between status checks of a delivery the relay has.
    let statusInterval: Int64 = 3
    /// Counts outcomes.
    let metrics: OutpostMetrics

    public init(store: OutpostStore, client: OutpostRelayClient, metrics: OutpostMetrics = OutpostMetrics(),
                clock: @escaping @Sendable () -> Int64 = OutpostStore.systemClock) {
        self.metrics = metrics
        self.store = store
        self.client = client
        self.clock = clock
    }

    /// Runs one round; returns how many deliveries it handled.
    @discardableResult
    public func run(limit: Int = 100) async throws -> Int {
        let due = try await store.dueDeliveries(limit: limit)
        for d in due {
            let now = clock()
            if d.status == .pending, now >= d.expiresAt {
                try await store.updateDelivery(d.pairingID, d.eventID, status: .expired, nextAttemptAt: now, attempted: false, error: d.lastError ?? "too old")
                metrics.delivery("expired")
                continue
            }
            switch d.status {
            case .pending: try await submit(d, now: now)
            case .queued: try await followUp(d, now: now)
            default: break
            }
        }
        return due.count
    }

    private func submit(_ d: DeliveryRecord, now: Int64) async throws {
        switch await client.submit(d.envelope) {
        case .accepted:
            try await store.updateDelivery(d.pairingID, d.eventID, status: .queued, nextAttemptAt: now + 1, attempted: true, error: nil)
            metrics.delivery("accepted")
        case .retry(let after, let reason):
            let next = now + max(after, Self.backoff(attempts: d.attempts + 1))
            try await store.updateDelivery(d.pairingID, d.eventID, status: .pending, nextAttemptAt: next, attempted: true, error: reason)
            metrics.delivery("retried")
        case .refused(let status, let code, _):
            try await store.updateDelivery(d.pairingID, d.eventID, status: .failed, nextAttemptAt: now, attempted: true, error: "\(status) \(code)")
            metrics.delivery("refused")
            // The device ended the pairing at the relay: stop sealing for it.
            if code == "pairing-ended" { try await store.markUnpaired(d.pairingID) }
        }
    }

    private func followUp(_ d: DeliveryRecord, now: Int64) async throws {
        guard let response = try? await client.signed(.get, "/v1/envelopes/\(d.pairingID)/\(d.eventID)"), response.status == .ok,
              let status = try? JSONDecoder().decode(RelayDeliveryStatus.self, from: Data(response.body))
        else {
            try await store.updateDelivery(d.pairingID, d.eventID, status: .queued, nextAttemptAt: now + statusInterval * 2, attempted: false, error: d.lastError)
            return
        }
        switch status.status {
        case "sent":
            try await store.updateDelivery(d.pairingID, d.eventID, status: .sent, nextAttemptAt: now, attempted: false, error: nil)
            metrics.delivery("sent")
        case "failed", "expired":
            let s: DeliveryRecord.Status = status.status == "failed" ? .failed : .expired
            try await store.updateDelivery(d.pairingID, d.eventID, status: s, nextAttemptAt: now, attempted: false,
                                           error: status.apnsReason.map { "APNs \(status.apnsStatus.map(String.init) ?? "") \($0)" } ?? status.status)
            metrics.delivery(status.status)
            // No push-to-start token: the App has not allowed Live Activities; stop starting them for this device.
            if d.kind == "live-activity-start", status.apnsReason == "no_device_token" { _ = try await store.setLiveActivities(d.pairingID, .unavailable) }
        default:
            try await store.updateDelivery(d.pairingID, d.eventID, status: .queued, nextAttemptAt: now + statusInterval, attempted: false, error: nil)
        }
    }

    /// Seconds before the next submission: 2, 4, 8 … capped at 5 minutes.
    static func backoff(attempts: Int) -> Int64 {
        min(Int64(1) << min(max(attempts, 1), 9), 300)
    }
}
