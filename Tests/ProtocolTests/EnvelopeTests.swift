import MailwakeCrypto
import MailwakeProtocol
import TestSupport
import Testing

@Suite("Envelope sealing and opening")
struct EnvelopeTests {
    let f: Fixtures
    init() throws { f = try Fixtures() }

    @Test func aSealedNotificationOpensOnThePairedDevice() throws {
        let plaintext = f.notification().jsonBytes
        let envelope = try f.sealer.seal(plaintext, to: f.deviceAgreement.publicKey, context: try f.context())
        let opened = try f.opener.open(Envelope.decode(envelope.jsonBytes))
        #expect(opened == plaintext)
        #expect(try NotificationContent.decode(opened) == f.notification())
    }

    @Test func aSealedLiveActivityOpensAndKeepsItsActivityFields() throws {
        let activity = ActivityInfo(id: "act-42", event: .update, timestamp: 1_764_400_100, staleDate: 1_764_400_700, dismissalDate: 0)
        let envelope = try f.sealer.seal([1, 2, 3], to: f.deviceAgreement.publicKey,
                                         context: try f.context(kind: .liveActivity, activity: activity))
        let decoded = try Envelope.decode(envelope.jsonBytes)
        #expect(decoded.context.activity == activity)
        #expect(try f.opener.open(decoded) == [1, 2, 3])
    }

    @Test func everySealingUsesFreshEphemeralKeySaltAndNonce() throws {
        let context = try f.context()
        let a = try f.sealer.seal([1], to: f.deviceAgreement.publicKey, context: context)
        let b = try f.sealer.seal([1], to: f.deviceAgreement.publicKey, context: context)
        #expect(a.ephemeralPublicKey != b.ephemeralPublicKey)
        #expect(a.salt != b.salt)
        #expect(a.nonce != b.nonce)
        #expect(a.ciphertext != b.ciphertext)
    }

    @Test func anotherDeviceCannotOpen() throws {
        let envelope = try f.sealer.seal([1], to: f.deviceAgreement.publicKey, context: try f.context())
        let stranger = EnvelopeOpener(agreementKey: try P256.KeyAgreement.PrivateKey(), outpostKey: f.outpost.publicKey, audience: f.aud,
                                      pairingID: f.pairingID)
        #expect(protocolErrorCode { _ = try stranger.open(envelope) } == "decryption_failed")
    }

    @Test func everyBitFlipOfTheWireFieldsIsRefused() throws {
        let envelope = try f.sealer.seal(f.notification().jsonBytes, to: f.deviceAgreement.publicKey, context: try f.context())
        let fields: [(String, WritableKeyPath<Envelope, [UInt8]>)] = [
            ("epk", \.ephemeralPublicKey), ("salt", \.salt), ("nonce", \.nonce), ("ct", \.ciphertext), ("sig", \.signature),
        ]
        for (name, path) in fields {
            for bit in stride(from: 0, to: envelope[keyPath: path].count * 8, by: 5) {
                var bad = envelope
                bad[keyPath: path] = envelope[keyPath: path].flippingBit(bit)
                #expect(protocolErrorCode { _ = try f.opener.open(bad) } == "bad_signature", "\(name) bit \(bit)")
            }
        }
    }

    @Test func theRelayVerifierAcceptsTheOutpostSignatureOnly() throws {
        let envelope = try f.sealer.seal([1], to: f.deviceAgreement.publicKey, context: try f.context())
        #expect(protocolErrorCode { try EnvelopeVerifier.verify(envelope, outpostKey: f.outpost.publicKey) } == nil)
        #expect(protocolErrorCode { try EnvelopeVerifier.verify(envelope,
                                                                outpostKey: try P256.Signing.PrivateKey().publicKey) } == "bad_signature")
    }

    @Test func aReplayedEventIsRefusedAfterDecryption() throws {
        let envelope = try f.sealer.seal([1], to: f.deviceAgreement.publicKey, context: try f.context())
        var accepted: Set<String> = []
        _ = try f.opener.open(envelope, alreadyAccepted: { accepted.contains($0) })
        accepted.insert(envelope.context.eventID)
        #expect(protocolErrorCode { _ = try f.opener.open(envelope, alreadyAccepted: { accepted.contains($0) }) } == "replayed")
    }

    @Test func theWireFormatRoundTripsThroughJSON() throws {
        let envelope = try f.sealer.seal([9, 9], to: f.deviceAgreement.publicKey, context: try f.context(kind: .liveActivity))
        #expect(try Envelope.decode(envelope.jsonBytes) == envelope)
    }

    @Test func oversizeDocumentsAndCiphertextsAreRefused() throws {
        let envelope = try f.sealer.seal([1], to: f.deviceAgreement.publicKey, context: try f.context())
        var big = envelope
        big.ciphertext = [UInt8](repeating: 7, count: Envelope.maxCiphertextBytes + 1)
        #expect(protocolErrorCode { _ = try Envelope.decode(big.jsonBytes) } == "too_large")
        let padded = Array(String(decoding: envelope.jsonBytes, as: UTF8.self).replacingOccurrences(of: "{",
            with: "{" + String(repeating: " ", count: 9000)).utf8)
        #expect(protocolErrorCode { _ = try Envelope.decode(padded) } == "too_large")
        #expect(protocolErrorCode { _ = try f.sealer.seal([UInt8](repeating: 0, count: 4000), to: f.deviceAgreement.publicKey,
                                                          context: try f.context()) } == "too_large")
    }

    @Test func sealingRefusesAnInconsistentContext() throws {
        var context = try f.context()
        context.activity = ActivityInfo(id: "x", event: .start, timestamp: 1)
        #expect(protocolErrorCode { _ = try f.sealer.seal([1], to: f.deviceAgreement.publicKey, context: context) } == "malformed")
        context = try f.context()
        context.aud = String(repeating: "a", count: 300)
        #expect(protocolErrorCode { _ = try f.sealer.seal([1], to: f.deviceAgreement.publicKey, context: context) } == "too_large")
    }
}
