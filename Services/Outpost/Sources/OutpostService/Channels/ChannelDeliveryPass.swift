import Foundation
public import MailwakeCore
import MailwakeProtocol

/// One round of channel deliveries: each due delivery is sent once; it is
/// done, retried later (5 s doubling to 10 minutes, or what the service asks),
/// failed, or expired. A webhook answering 410 turns its channel off.
public struct ChannelDeliveryPass: Sendable {
    let store: OutpostStore
    let sender: ChannelSender
    let logger: Logger
    let metrics: OutpostMetrics

    public init(store: OutpostStore, sender: ChannelSender, logger: Logger, metrics: OutpostMetrics = OutpostMetrics()) {
        self.metrics = metrics
        self.store = store
        self.sender = sender
        self.logger = logger
    }

    /// Handles what is due; returns how many deliveries it looked at.
    @discardableResult
    public func run(limit: Int = 50) async throws -> Int {
        let due = try await store.dueChannelDeliveries(limit: limit)
        guard !due.isEmpty else { return 0 }
        let channels = Dictionary(uniqueKeysWithValues: try await store.channels().map { ($0.id, $0) })
        for d in due {
            let now = store.clock()
            guard let channel = channels[d.channelID], channel.enabled else {
                try await store.updateChannelDelivery(d.channelID, d.eventID, status: .failed, nextAttemptAt: now,
                                                      error: "the channel is disabled")
                if let channel = channels[d.channelID] { metrics.channelDelivery(channel.kind, "failed") }
                continue
            }
            if now >= d.expiresAt {
                try await store.updateChannelDelivery(d.channelID, d.eventID, status: .expired, nextAttemptAt: now,
                                                      error: "not delivered in time")
                metrics.channelDelivery(channel.kind, "expired")
                continue
            }
            let content: NotificationContent
            do {
                content = try NotificationContent.decode(try store.box.open(d.payloadSealed, purpose: "channel-delivery",
                                                                            context: "channel-delivery:\(d.channelID):\(d.eventID)"))
            } catch {
                try await store.updateChannelDelivery(d.channelID, d.eventID, status: .failed, nextAttemptAt: now,
                                                      error: "the stored notification does not open")
                metrics.channelDelivery(channel.kind, "failed")
                continue
            }
            let secrets = try await store.channelSecrets(channel.id)
            let (outcome, quota) = await sender.deliver(content, eventID: d.eventID, channel: channel, secrets: secrets, now: now)
            if let quota, quota.isLow {
                logger.warning("Pushover quota running low",
                               ["channel": .string(channel.name), "remaining": .int(quota.remaining), "limit": .int(quota.limit)])
            }
            switch outcome {
            case .sent:
                try await store.updateChannelDelivery(d.channelID, d.eventID, status: .sent, nextAttemptAt: now, error: nil)
                metrics.channelDelivery(channel.kind, "sent")
            case .retry(let after, let reason):
                let next = now + max(after, Self.backoff(attempts: d.attempts + 1))
                try await store.updateChannelDelivery(d.channelID, d.eventID, status: .pending, nextAttemptAt: next, error: reason)
                metrics.channelDelivery(channel.kind, "retried")
                logger.info("channel delivery will be retried",
                            ["channel": .string(channel.name), "reason": .string(reason), "in_s": .int(Int(next - now))])
            case .failed(let reason):
                try await store.updateChannelDelivery(d.channelID, d.eventID, status: .failed, nextAttemptAt: now, error: reason)
                metrics.channelDelivery(channel.kind, "failed")
                logger.warning("channel delivery failed", ["channel": .string(channel.name), "reason": .string(reason)])
            case .disable(let reason):
                try await store.updateChannelDelivery(d.channelID, d.eventID, status: .failed, nextAttemptAt: now, error: reason)
                try await store.disableChannel(channel.id, reason: reason)
                metrics.channelDelivery(channel.kind, "disabled")
                logger.warning("channel disabled", ["channel": .string(channel.name), "reason": .string(reason)])
            }
        }
        return due.count
    }

    /// Seconds before the next attempt: 5, 10, 20 … capped at 10 minutes.
    static func backoff(attempts: Int) -> Int64 {
        min(5 * (Int64(1) << min(max(attempts - 1, 0), 7)), 600)
    }
}
