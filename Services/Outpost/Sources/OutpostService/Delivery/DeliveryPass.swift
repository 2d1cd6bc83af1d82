import Foundation
public import MailwakeCore
import MailwakeProtocol

/// One round of the outpost's delivery work: submit what the relay does not
/// have yet (the stored bytes, never re-encrypted), follow what it has until
/// it says how it ended, and give up on what is too old.
public struct DeliveryPass: Sendable {
    public let store: OutpostStore
    let client: OutpostRelayClient
    let clock: @Sendable () -> Int64
    /// Seconds between status checks of a delivery the relay has.
    let statusInterval: Int64 = 3
    /// Seconds past a delivery's `expiresAt` (its `iat` + `DELIVERY_MAX_AGE`)
    /// the outpost still follows it, for the relay's last APNs attempt to report.
    public static let statusGrace: Int64 = 600
    /// Counts outcomes.
    let metrics: OutpostMetrics

    public init(store: OutpostStore, client: OutpostRelayClient, metrics: OutpostMetrics = OutpostMetrics(),
                clock: @escaping @Sendable () -> Int64 = WallClock.seconds) {
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
                try await store.updateDelivery(d.pairingID, d.eventID, status: .expired, nextAttemptAt: now, attempted: false,
                                               error: d.lastError ?? "too old")
                metrics.delivery("expired")
                continue
            }
            switch d.status {
            case .pending: try await submit(d, now: now)
            case .queued: try await followUp(d, now: now)
            case .sent where d.awaitingReceipt: try await followUp(d, now: now)
            default: break
            }
        }
        return due.count
    }

    private func submit(_ d: DeliveryRecord, now: Int64) async throws {
        switch await client.submit(d.envelope) {
        case .accepted:
            // First check 2 s on: a device that is online has usually shown it
            // (and posted its receipt) by then, so one check learns `displayed`.
            try await store.markAccepted(d.pairingID, d.eventID, at: now, nextCheckAt: now + Self.firstCheckDelay)
            metrics.delivery("accepted")
            metrics.hop(.noticedToAccepted, seconds: now - d.createdAt)
        case .retry(let after, let reason):
            let next = now + max(after, Self.backoff(attempts: d.attempts + 1))
            try await store.updateDelivery(d.pairingID, d.eventID, status: .pending, nextAttemptAt: next, attempted: true, error: reason)
            metrics.delivery("retried")
        case .refused(let status, let code, _):
            try await store.updateDelivery(d.pairingID, d.eventID, status: .failed, nextAttemptAt: now, attempted: true,
                                           error: "\(status) \(code)")
            metrics.delivery("refused")
            // The device ended the pairing at the relay: stop sealing for it.
            if code == "pairing-ended" { try await store.markUnpaired(d.pairingID) }
        }
    }

    private func followUp(_ d: DeliveryRecord, now: Int64) async throws {
        let deadline = d.expiresAt + Self.statusGrace
        let answer: DeliveryStatusReport
        do {
            let response = try await client.signed(.get, "/v1/envelopes/\(d.pairingID)/\(d.eventID)")
            if response.status == .notFound {
                // Sent, then pruned at the relay: no receipt will be reported any more; it stays sent.
                if d.status == .sent {
                    return try await store.markSent(d.pairingID, d.eventID, sentAt: nil, displayedAt: nil, nextCheckAt: nil)
                }
                // The relay does not know it (pruned after its retention, or lost): it will never report an outcome.
                return try await end(d, .expired, now: now,
                                     reason: "the relay no longer knows this delivery (404 \(Self.code(response.body) ?? "not found")); " +
                                             "outcome unknown")
            }
            guard response.status == .ok else {
                return try await retryFollowUp(d, now: now, deadline: deadline,
                                               last: "status check answered \(response.status.code) \(Self.code(response.body) ?? "")")
            }
            guard let decoded = try? DeliveryStatusReport.decode(response.body) else {
                return try await retryFollowUp(d, now: now, deadline: deadline, last: "status check answered an unreadable body")
            }
            answer = decoded
        } catch {
            return try await retryFollowUp(d, now: now, deadline: deadline, last: "status check failed: relay unreachable")
        }
        switch answer.status {
        case .sent?, .displayed?:
            try await recordSent(d, answer, now: now, deadline: deadline)
        case let final? where final == .failed || final == .expired:
            let s: DeliveryRecord.Status = final == .failed ? .failed : .expired
            try await store.updateDelivery(d.pairingID, d.eventID, status: s, nextAttemptAt: now, attempted: false,
                                           error: answer.apnsReason.map { "APNs \(answer.apnsStatus.map(String.init) ?? "") \($0)" }
                                               ?? final.rawValue)
            metrics.delivery(final.rawValue)
            // No push-to-start token: the App has not allowed Live Activities; stop starting them for this device.
            if d.kind == "live-activity-start",
               answer.apnsReason == .noDeviceToken { _ = try await store.setLiveActivities(d.pairingID, .unavailable) }
        default:
            // Queued or sending (or a status this version does not know): ask again later.
            if now >= deadline {
                return try await end(d, .expired, now: now,
                                     reason: "the relay had not sent it by the deadline (still \(answer.statusText))")
            }
            try await store.updateDelivery(d.pairingID, d.eventID, status: .queued, nextAttemptAt: min(now + statusInterval, deadline),
                                           attempted: false, error: nil)
        }
    }

    /// `sent` (or already `displayed`): records the relay's times and keeps
    /// following for the receipt, at widening gaps, until displayed or the deadline.
    private func recordSent(_ d: DeliveryRecord, _ answer: DeliveryStatusReport, now: Int64, deadline: Int64) async throws {
        let sentAt = answer.sentAt ?? d.sentAt
        let displayedAt = answer.status == .displayed ? (answer.displayedAt ?? now) : nil
        // Live Activity pushes get no receipts: sent is their end.
        let next: Int64? = displayedAt != nil || now >= deadline
            || d.kind != "notification" ? nil : min(now + Self.receiptCheckGap(sinceSent: now - (sentAt ?? now)), deadline)
        try await store.markSent(d.pairingID, d.eventID, sentAt: sentAt, displayedAt: displayedAt, nextCheckAt: next)
        if d.status != .sent {
            metrics.delivery("sent")
            if let sentAt, let accepted = d.acceptedAt { metrics.hop(.acceptedToSent, seconds: sentAt - accepted) }
        }
        guard let displayedAt else { return }
        metrics.delivery("displayed")
        if let sentAt { metrics.hop(.sentToDisplayed, seconds: displayedAt - sentAt) }
        metrics.hop(.noticedToDisplayed, seconds: displayedAt - d.createdAt)
    }

    /// Seconds after acceptance of the first status check.
    static let firstCheckDelay: Int64 = 2

    /// Seconds to the next receipt check of a sent delivery: 10 s, 1, 5, 30
    /// minutes, then hourly (a device offline for a day costs ~28 checks; one online, none).
    public static func receiptCheckGap(sinceSent elapsed: Int64) -> Int64 {
        switch elapsed {
        case ..<10: 10
        case ..<60: 60
        case ..<300: 300
        case ..<1800: 1800
        default: 3600
        }
    }

    /// Checks again later (backing off), or ends the delivery once its deadline has passed.
    private func retryFollowUp(_ d: DeliveryRecord, now: Int64, deadline: Int64, last: String) async throws {
        if d.status == .sent {
            // A sent delivery's receipt check failed: it stays sent, asked again later or given up at the deadline.
            let next: Int64? = now >= deadline ? nil : min(now + Self.receiptCheckGap(sinceSent: now - (d.sentAt ?? now)), deadline)
            return try await store.markSent(d.pairingID, d.eventID, sentAt: nil, displayedAt: nil, nextCheckAt: next)
        }
        if now >= deadline {
            return try await end(d, .expired, now: now, reason: "no outcome from the relay by the deadline; last: \(last)")
        }
        let next = min(now + max(statusInterval * 2, Self.backoff(attempts: d.attempts)), deadline)
        try await store.updateDelivery(d.pairingID, d.eventID, status: .queued, nextAttemptAt: next, attempted: true, error: last)
    }

    /// Gives a delivery its final state and reason.
    private func end(_ d: DeliveryRecord, _ status: DeliveryRecord.Status, now: Int64, reason: String) async throws {
        try await store.updateDelivery(d.pairingID, d.eventID, status: status, nextAttemptAt: now, attempted: false, error: reason)
        metrics.delivery(status.rawValue)
    }

    /// The problem code of a relay error body (`urn:mailwake:problem:<code>`), if it has one.
    private static func code(_ body: [UInt8]) -> String? {
        let prefix = "urn:mailwake:problem:"
        guard let type = (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["type"] as? String,
              type.hasPrefix(prefix) else { return nil }
        return String(type.dropFirst(prefix.count))
    }

    /// Seconds before the next submission: 2, 4, 8 … capped at 5 minutes.
    static func backoff(attempts: Int) -> Int64 {
        min(Int64(1) << min(max(attempts, 1), 9), 300)
    }
}
