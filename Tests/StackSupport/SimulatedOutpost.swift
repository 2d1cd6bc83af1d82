import Foundation
public import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
public import MailwakeProtocol
import TestSupport

/// A simulated outpost: its identity key, pairing through the relay, and
/// sealed, signed envelopes for its paired devices.
public struct SimulatedOutpost: Sendable {
    public let identity: P256.Signing.PrivateKey
    public var id: String { KeyIdentity.id(of: identity.publicKey) }
    public var publicKey: P256.Signing.PublicKey { identity.publicKey }

    public init() throws { identity = try .init() }

    /// A fresh pairing registration and the link the App scans.
    public func pairingOffer(relay: String = RelayInstance.origin, lifetime: Int64 = 300) throws -> (registration: PairingRegistration,
        link: PairingLink) {
        let credential = try SecureRandom.bytes(32)
        let expires = Int64(Date().timeIntervalSince1970) + lifetime
        let pairingID = try PairingID.generate()
        let registration = PairingRegistration(pairingID: pairingID, outpostKey: identity.publicKey.x963Representation,
                                               relayTokenHash: try PairingSecrets(credential: credential).relayTokenHash,
                                               expiresAt: expires)
        let link = PairingLink(outpostKey: identity.publicKey.x963Representation, relay: relay, environment: .sandbox,
                               pairingID: pairingID,
                               credential: credential, expiresAt: expires)
        return (registration, link)
    }

    /// Seals a notification for `device` on `pairingID` (a fresh event id unless given).
    public func envelope(for device: SimulatedDevice, pairingID: String, content: NotificationContent, eventID: String? = nil,
                         kind: EnvelopeKind = .notification, activity: ActivityInfo? = nil, iat: Int64? = nil,
                         audience: String = RelayInstance.origin) throws -> Envelope {
        let context = EncryptionContext(aud: audience, pairingID: pairingID, eventID: try eventID ?? EventID.generate(), kind: kind,
                                        iat: UInt64(iat ?? Int64(Date().timeIntervalSince1970)), activity: activity)
        return try EnvelopeSealer(identity: identity).seal(content.jsonBytes, to: device.agreement.publicKey, context: context)
    }

    /// A small notification with a verification code.
    public static func sampleContent(subject: String = "Your sign-in code", code: String? = "482913") -> NotificationContent {
        NotificationContent(mailbox: "personal", folder: "INBOX", from: .init(name: "Example Bank", address: "no-reply@bank.example"),
                            subject: subject, receivedAt: UInt64(Date().timeIntervalSince1970), code: code)
    }
}
