import Foundation
public import MailwakeCore
import MailwakeCrypto
public import MailwakeProtocol

/// Turns a notification into one sealed, signed envelope per active pairing
/// (a fresh ephemeral key, salt and nonce each), stored before any is sent.
public struct OutpostNotifier: Sendable {
    let store: OutpostStore
    let identity: OutpostIdentity
    let relay: RelaySettingsRecord
    /// Seconds an undelivered envelope is kept trying (the relay refuses older ones too).
    let maxAge: Int64
    let clock: @Sendable () -> Int64
    /// Rung after envelopes are stored, to wake the delivery worker at once.
    let doorbell: Doorbell?
    /// Seconds a code's Live Activity stays before it ends by itself; 0: no Live Activities.
    let liveActivityLifetime: Int64
    /// Counts notifications built.
    let metrics: OutpostMetrics

    public init(store: OutpostStore, identity: OutpostIdentity, relay: RelaySettingsRecord, maxAge: Int64 = 86400, doorbell: Doorbell? = nil,
                liveActivityLifetime: Int64 = 600, metrics: OutpostMetrics = OutpostMetrics(), clock: @escaping @Sendable () -> Int64 = OutpostStore.systemClock) {
        self.metrics = metrics
        self.doorbell = doorbell
        self.liveActivityLifetime = liveActivityLifetime
        self.store = store
        self.identity = identity
        self.relay = relay
        self.maxAge = maxAge
        self.clock = clock
    }

    /// Seals and stores `content` for every active pairing at this relay, and
    /// queues it for every enabled channel; returns the history id (nil when
    /// nothing is paired and no channel is on). With `position`,
    /// the folder moves past the message in the same transaction.
    @discardableResult
    public func notify(_ content: NotificationContent, advancing position: FolderPosition? = nil) async throws -> Int64? {
        let pairings = try await store.pairings(activeOnly: true).filter { $0.relayURL == relay.origin }
        let sealer = EnvelopeSealer(identity: identity.signingKey)
        let now = clock()
        var sealed: [(pairingID: String, eventID: String, envelope: [UInt8])] = []
        var starts: [ActivityStart] = []
        for pairing in pairings {
            let recipient = try P256.KeyAgreement.PublicKey(x963Representation: pairing.agreementKey)
            let context = EncryptionContext(aud: relay.origin, pairingID: pairing.pairingID, eventID: try EventID.generate(), kind: .notification,
                                            iat: UInt64(now))
            var perDevice = content
            if let position {
                // The device's own reference to the message, for reading its body (§7).
                perDevice.ref = try MessageReference(outpostID: identity.id, deviceID: pairing.deviceID, mailboxID: String(position.mailboxID),
                                                     folder: position.folder, uidValidity: position.uidValidity, uid: position.uid,
                                                     iat: UInt64(now)).sign(with: identity.signingKey)
            }
            // Shortened to fit and padded to 512, 1024 or 2048 bytes (§6).
            let envelope = try sealer.seal(try perDevice.paddedPlaintext(for: context), to: recipient, context: context)
            sealed.append((pairing.pairingID, context.eventID, envelope.jsonBytes))
            if content.code != nil, liveActivityLifetime > 0, pairing.liveActivities == .on {
                starts.append(try activityStart(perDevice, for: pairing, recipient: recipient, sealer: sealer, now: now))
            }
        }
        // Channels get the same content, sealed at rest, rendered when sent.
        let channels = try await store.channels(enabledOnly: true)
        let eventID = try sealed.first?.eventID ?? EventID.generate()
        let channelPayloads = try channels.map { channel in
            (channelID: channel.id, eventID: eventID,
             payloadSealed: try store.box.seal(content.jsonBytes, purpose: "channel-delivery", context: "channel-delivery:\(channel.id):\(eventID)"))
        }
        let sender = content.from.name.isEmpty ? content.from.address : "\(content.from.name) <\(content.from.address)>"
        let entry = sealed.isEmpty && channelPayloads.isEmpty ? nil
            : HistoryDraft(eventID: eventID, mailbox: content.mailbox, folder: content.folder, sender: sender, subjectSummary: String(content.subject.prefix(80)),
                           mailReceivedAt: content.receivedAt > 0 ? Int64(clamping: content.receivedAt) : nil)
        let historyID = try await store.recordNotification(entry, deliveries: sealed, channelDeliveries: channelPayloads, activities: starts,
                                                           expiresAt: now + maxAge, advancing: position)
        if historyID != nil {
            metrics.notificationBuilt()
            if let received = entry?.mailReceivedAt { metrics.hop(.receivedToNoticed, seconds: now - received) }
            doorbell?.ring()
        }
        return historyID
    }

    /// A code's Live Activity `start` for one device: its own event id, the
    /// activity id, timestamp and stale date bound into the context (§3).
    private func activityStart(_ content: NotificationContent, for pairing: PairedDevice, recipient: P256.KeyAgreement.PublicKey,
                               sealer: EnvelopeSealer, now: Int64) throws -> ActivityStart {
        let activityID = UUID().uuidString.lowercased()
        let activity = ActivityInfo(id: activityID, event: .start, timestamp: UInt64(now), staleDate: UInt64(now + liveActivityLifetime))
        let context = EncryptionContext(aud: relay.origin, pairingID: pairing.pairingID, eventID: try EventID.generate(), kind: .liveActivity,
                                        iat: UInt64(now), activity: activity)
        // Padded like a notification (§6); the `end` envelopes reseal these same bytes.
        let plaintext = try content.paddedPlaintext(for: context)
        let envelope = try sealer.seal(plaintext, to: recipient, context: context)
        let contentSealed = try store.box.seal(plaintext, purpose: "live-activity", context: "live-activity:\(pairing.pairingID):\(activityID)")
        return ActivityStart(pairingID: pairing.pairingID, activityID: activityID, eventID: context.eventID, envelope: envelope.jsonBytes,
                             contentSealed: contentSealed, endAt: now + liveActivityLifetime)
    }

    /// Ends `activities` now (`end` envelopes, dismissed at once): the
    /// message was read or deleted, or the lifetime is over.
    public func endActivities(_ activities: [OpenActivity], reason: String) async throws {
        guard !activities.isEmpty else { return }
        let pairings = Dictionary(uniqueKeysWithValues: try await store.pairings(activeOnly: true).map { ($0.pairingID, $0) })
        let sealer = EnvelopeSealer(identity: identity.signingKey)
        let now = clock()
        var ends: [(activity: OpenActivity, eventID: String, envelope: [UInt8]?)] = []
        for a in activities {
            guard let pairing = pairings[a.pairingID], pairing.relayURL == relay.origin,
                  let plaintext = try? store.box.open(a.contentSealed, purpose: "live-activity", context: "live-activity:\(a.pairingID):\(a.activityID)")
            else {
                ends.append((a, "", nil))   // unpaired meanwhile: nothing to send
                continue
            }
            let activity = ActivityInfo(id: a.activityID, event: .end, timestamp: UInt64(now), dismissalDate: UInt64(now))
            let context = EncryptionContext(aud: relay.origin, pairingID: a.pairingID, eventID: try EventID.generate(), kind: .liveActivity,
                                            iat: UInt64(now), activity: activity)
            let recipient = try P256.KeyAgreement.PublicKey(x963Representation: pairing.agreementKey)
            ends.append((a, context.eventID, try sealer.seal(plaintext, to: recipient, context: context).jsonBytes))
        }
        try await store.recordActivityEnds(ends, reason: reason, expiresAt: now + min(maxAge, 3600))
        doorbell?.ring()
    }

    /// Ends the activities whose lifetime is over; returns how many.
    @discardableResult
    public func endExpiredActivities() async throws -> Int {
        let expired = try await store.expiredActivities(now: clock())
        try await endActivities(expired, reason: "lifetime over")
        return expired.count
    }
}
