import Foundation
import MailwakeCrypto
import MailwakeProtocol

/// A verification code's Live Activity on each device, from `start` to `end`.
///
/// The `start` is sealed and stored with the notification; the `end` follows
/// when the message is read or deleted, or when the lifetime is over.
public struct LiveActivityLifecycle: Sendable {
    let store: OutpostStore
    let identity: OutpostIdentity
    let relay: RelaySettingsRecord
    /// Seconds a code's Live Activity stays before it ends by itself; 0: no Live Activities.
    let lifetime: Int64
    let clock: @Sendable () -> Int64
    /// Where `end` envelopes are stored.
    let outbox: Outbox

    /// Whether `content` starts a Live Activity on `pairing`: a code, with Live Activities on for the device.
    func starts(_ content: NotificationContent, on pairing: PairedDevice) -> Bool {
        content.code != nil && lifetime > 0 && pairing.liveActivities == .on
    }

    /// A code's Live Activity `start` for the device of `notification`, not stored yet.
    ///
    /// It has its own event id; the activity id, timestamp and stale date are bound into the context (§3).
    func start(_ notification: SealedNotification, now: Int64) throws -> ActivityStart {
        let pairingID = notification.pairing.pairingID
        let activityID = UUID().uuidString.lowercased()
        let activity = ActivityInfo(id: activityID, event: .start, timestamp: UInt64(now), staleDate: UInt64(now + lifetime))
        let context = EncryptionContext(aud: relay.origin, pairingID: pairingID, eventID: try EventID.generate(), kind: .liveActivity,
                                        iat: UInt64(now), activity: activity)
        // Padded like a notification (§6); the `end` envelopes reseal these same bytes.
        let plaintext = try notification.content.paddedPlaintext(for: context)
        let envelope = try EnvelopeSealer(identity: identity.signingKey).seal(plaintext, to: notification.recipient, context: context)
        let contentSealed = try store.box.seal(plaintext, purpose: "live-activity", context: "live-activity:\(pairingID):\(activityID)")
        return ActivityStart(pairingID: pairingID, activityID: activityID, eventID: context.eventID, envelope: envelope.jsonBytes,
                             contentSealed: contentSealed, endAt: now + lifetime)
    }

    /// Ends `activities` now with `end` envelopes, dismissed at once.
    ///
    /// Called when the message was read or deleted, or the lifetime is over.
    public func end(_ activities: [OpenActivity], reason: String) async throws {
        guard !activities.isEmpty else { return }
        let pairings = Dictionary(uniqueKeysWithValues: try await store.pairings(activeOnly: true).map { ($0.pairingID, $0) })
        let sealer = EnvelopeSealer(identity: identity.signingKey)
        let now = clock()
        var ends: [(activity: OpenActivity, eventID: String, envelope: [UInt8]?)] = []
        for a in activities {
            guard let pairing = pairings[a.pairingID], pairing.relayURL == relay.origin,
                  let plaintext = try? store.box.open(a.contentSealed, purpose: "live-activity",
                                                      context: "live-activity:\(a.pairingID):\(a.activityID)")
            else {
                ends.append((a, "", nil))   // unpaired meanwhile: nothing to send
                continue
            }
            let activity = ActivityInfo(id: a.activityID, event: .end, timestamp: UInt64(now), dismissalDate: UInt64(now))
            let context = EncryptionContext(aud: relay.origin, pairingID: a.pairingID, eventID: try EventID.generate(),
                                            kind: .liveActivity, iat: UInt64(now), activity: activity)
            let recipient = try P256.KeyAgreement.PublicKey(x963Representation: pairing.agreementKey)
            ends.append((a, context.eventID, try sealer.seal(plaintext, to: recipient, context: context).jsonBytes))
        }
        try await outbox.recordActivityEnds(ends, reason: reason, now: now)
    }

    /// Ends the activities whose lifetime is over; returns how many.
    @discardableResult
    public func endExpired() async throws -> Int {
        let expired = try await store.expiredActivities(now: clock())
        try await end(expired, reason: "lifetime over")
        return expired.count
    }
}
