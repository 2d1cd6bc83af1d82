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

    public init(store: OutpostStore, identity: OutpostIdentity, relay: RelaySettingsRecord, maxAge: Int64 = 86400, doorbell: Doorbell? = nil,
                clock: @escaping @Sendable () -> Int64 = OutpostStore.systemClock) {
        self.doorbell = doorbell
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
        for pairing in pairings {
            let recipient = try P256.KeyAgreement.PublicKey(x963Representation: pairing.agreementKey)
            let context = EncryptionContext(aud: relay.origin, pairingID: pairing.pairingID, eventID: try EventID.generate(), kind: .notification,
                                            iat: UInt64(now))
            let fitted = try content.fitted(for: context)
            let envelope = try sealer.seal(fitted.jsonBytes, to: recipient, context: context)
            sealed.append((pairing.pairingID, context.eventID, envelope.jsonBytes))
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
            : HistoryDraft(eventID: eventID, mailbox: content.mailbox, folder: content.folder, sender: sender, subjectSummary: String(content.subject.prefix(80)))
        let historyID = try await store.recordNotification(entry, deliveries: sealed, channelDeliveries: channelPayloads, expiresAt: now + maxAge,
                                                           advancing: position)
        if historyID != nil { doorbell?.ring() }
        return historyID
    }
}
