import MailwakeCrypto
import MailwakeProtocol

/// Keys and contexts shared by the protocol tests.
struct Fixtures {
    let outpost: P256.Signing.PrivateKey
    let deviceSigning: P256.Signing.PrivateKey
    let deviceAgreement: P256.KeyAgreement.PrivateKey
    let aud = "https://push.example.net"
    let pairingID: String

    init() throws {
        outpost = try P256.Signing.PrivateKey()
        deviceSigning = try P256.Signing.PrivateKey()
        deviceAgreement = try P256.KeyAgreement.PrivateKey()
        pairingID = try PairingID.generate()
    }

    func context(kind: EnvelopeKind = .notification, iat: UInt64 = 1_764_400_000,
                 activity: ActivityInfo? = nil) throws -> EncryptionContext {
        EncryptionContext(aud: aud, pairingID: pairingID, eventID: try EventID.generate(), kind: kind, iat: iat,
                          activity: kind == .liveActivity ? (activity ?? ActivityInfo(id: "act-1", event: .start, timestamp: iat)) : nil)
    }

    var opener: EnvelopeOpener {
        EnvelopeOpener(agreementKey: deviceAgreement, outpostKey: outpost.publicKey, audience: aud, pairingID: pairingID)
    }

    var sealer: EnvelopeSealer { EnvelopeSealer(identity: outpost) }

    func notification(subject: String = "Quarterly report", name: String = "Alice Example") -> NotificationContent {
        NotificationContent(mailbox: "Work", folder: "INBOX", from: .init(name: name, address: "alice@example.com"),
                            subject: subject, receivedAt: 1_764_399_990, code: "482913")
    }
}

/// The code of a `ProtocolError` thrown by `body`, or nil when it succeeds.
func protocolErrorCode(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as ProtocolError {
        return error.code.rawValue
    } catch {
        return "unexpected \(error)"
    }
}
