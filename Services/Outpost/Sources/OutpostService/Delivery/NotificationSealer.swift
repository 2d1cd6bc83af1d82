import MailwakeCore
import MailwakeCrypto
import MailwakeProtocol

/// Seals a notification for one paired device.
///
/// Each sealing takes a fresh ephemeral key, salt and nonce; for mail, the
/// content carries the device's own signed reference to the message (§7).
struct NotificationSealer: Sendable {
    let identity: OutpostIdentity
    let relay: RelaySettingsRecord

    /// `content` sealed for `pairing`, issued at `now`; with `position`, it carries a reference to that message.
    func seal(_ content: NotificationContent, for pairing: PairedDevice, advancing position: FolderPosition?,
              now: Int64) throws -> SealedNotification {
        let recipient = try P256.KeyAgreement.PublicKey(x963Representation: pairing.agreementKey)
        let context = EncryptionContext(aud: relay.origin, pairingID: pairing.pairingID, eventID: try EventID.generate(),
                                        kind: .notification, iat: UInt64(now))
        var perDevice = content
        if let position {
            // The device's own reference to the message, for reading its body (§7).
            perDevice.ref = try MessageReference(outpostID: identity.id, deviceID: pairing.deviceID, mailboxID: String(position.mailboxID),
                                                 folder: position.folder, uidValidity: position.uidValidity, uid: position.uid,
                                                 iat: UInt64(now)).sign(with: identity.signingKey)
        }
        // Shortened to fit and padded to 512, 1024 or 2048 bytes (§6).
        let envelope = try EnvelopeSealer(identity: identity.signingKey).seal(try perDevice.paddedPlaintext(for: context), to: recipient,
                                                                              context: context)
        return SealedNotification(pairing: pairing, recipient: recipient, content: perDevice, eventID: context.eventID,
                                  envelope: envelope.jsonBytes)
    }
}
