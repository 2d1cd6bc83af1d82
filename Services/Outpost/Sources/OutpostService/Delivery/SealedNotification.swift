import MailwakeCrypto
import MailwakeProtocol

/// A notification sealed for one paired device, not stored yet.
struct SealedNotification: Sendable {
    let pairing: PairedDevice
    /// The device's agreement key (a code's Live Activity is sealed to it too).
    let recipient: P256.KeyAgreement.PublicKey
    /// The content as sealed for this device (with its own message reference, for mail).
    let content: NotificationContent
    let eventID: String
    /// The envelope, as JSON.
    let envelope: [UInt8]
}
