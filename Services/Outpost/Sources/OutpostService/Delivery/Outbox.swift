import MailwakeCore
import MailwakeProtocol

/// Writes the outbox: the history entries and delivery rows the delivery worker sends.
///
/// A notification's history entry is stored with its deliveries (devices,
/// channels, Live Activity starts) in one transaction; Live Activity ends are
/// stored alone. The doorbell rings once they are stored.
struct Outbox: Sendable {
    let store: OutpostStore
    /// Seconds an undelivered envelope is kept trying (the relay refuses older ones too).
    let maxAge: Int64
    /// Rung after envelopes are stored, to wake the delivery worker at once.
    let doorbell: Doorbell?
    /// Counts notifications built.
    let metrics: OutpostMetrics

    /// Stores `sealed` and `activities` under one history entry of `content`, queued for every enabled channel too.
    ///
    /// Returns the history id (nil when nothing is sealed and no channel is
    /// on). With `position`, the folder moves past the message in the same transaction.
    func record(_ content: NotificationContent, sealed: [SealedNotification], activities: [ActivityStart],
                advancing position: FolderPosition?, now: Int64) async throws -> Int64? {
        // Channels get the same content, sealed at rest, rendered when sent.
        let channels = try await store.channels(enabledOnly: true)
        let eventID = try sealed.first?.eventID ?? EventID.generate()
        let channelPayloads = try channels.map { channel in
            (channelID: channel.id, eventID: eventID,
             payloadSealed: try store.box.seal(content.jsonBytes, purpose: "channel-delivery",
                                               context: "channel-delivery:\(channel.id):\(eventID)"))
        }
        let sender = content.from.name.isEmpty ? content.from.address : "\(content.from.name) <\(content.from.address)>"
        let entry = sealed.isEmpty && channelPayloads.isEmpty ? nil
            : HistoryDraft(eventID: eventID, mailbox: content.mailbox, folder: content.folder, sender: sender,
                           subjectSummary: String(content.subject.prefix(80)),
                           mailReceivedAt: content.receivedAt > 0 ? Int64(clamping: content.receivedAt) : nil)
        let deliveries = sealed.map { (pairingID: $0.pairing.pairingID, eventID: $0.eventID, envelope: $0.envelope) }
        let historyID = try await store.recordNotification(entry, deliveries: deliveries, channelDeliveries: channelPayloads,
                                                           activities: activities, expiresAt: now + maxAge, advancing: position)
        if historyID != nil {
            metrics.notificationBuilt()
            if let received = entry?.mailReceivedAt { metrics.hop(.receivedToNoticed, seconds: now - received) }
            doorbell?.ring()
        }
        return historyID
    }

    /// Stores Live Activity `end` envelopes made at `now` (nil: nothing to send) and marks their activities ended.
    ///
    /// An `end` is kept trying for at most an hour.
    func recordActivityEnds(_ ends: [(activity: OpenActivity, eventID: String, envelope: [UInt8]?)], reason: String,
                            now: Int64) async throws {
        try await store.recordActivityEnds(ends, reason: reason, expiresAt: now + min(maxAge, 3600))
        doorbell?.ring()
    }
}
