public import MailwakeCrypto

/// Opens envelopes on the device, exactly as the App does (PROTOCOL.md §4).
///
/// Order: verify `sig` with the outpost key pinned at pairing, rebuild the
/// context, check `aud` and `pairing_id`, derive the key, open with AAD =
/// context, reject an `event_id` already accepted. Nothing is returned unless
/// every step passes.
public struct EnvelopeOpener: Sendable {
    public let agreementKey: P256.KeyAgreement.PrivateKey
    public let outpostKey: P256.Signing.PublicKey
    public let audience: String
    public let pairingID: String
    private let recipientX963: [UInt8]

    /// - Parameters:
    ///   - agreementKey: the device's key-agreement private key.
    ///   - outpostKey: the outpost identity key pinned at pairing.
    ///   - audience: the relay origin from the pairing link.
    ///   - pairingID: this pairing's id.
    public init(agreementKey: P256.KeyAgreement.PrivateKey, outpostKey: P256.Signing.PublicKey, audience: String, pairingID: String) {
        self.agreementKey = agreementKey
        self.outpostKey = outpostKey
        self.audience = audience
        self.pairingID = pairingID
        recipientX963 = agreementKey.publicKey.x963Representation
    }

    /// Opens `envelope` and returns the plaintext.
    ///
    /// - Parameter alreadyAccepted: answers whether an event id was accepted before.
    public func open(_ envelope: Envelope, alreadyAccepted: (String) -> Bool = { _ in false }) throws(ProtocolError) -> [UInt8] {
        try EnvelopeVerifier.verify(envelope, outpostKey: outpostKey)
        let context = envelope.context
        guard context.aud == audience else { throw ProtocolError(.wrongAudience, "envelope audience is not this pairing's relay") }
        guard context.pairingID == pairingID else { throw ProtocolError(.wrongPairing, "envelope is for another pairing") }
        let epk: P256.KeyAgreement.PublicKey
        do {
            epk = try P256.KeyAgreement.PublicKey(x963Representation: envelope.ephemeralPublicKey)
        } catch {
            throw ProtocolError(.invalidKey, "epk is not a valid P-256 point")
        }
        let contextBytes = context.bytes
        let info = EnvelopeKeySchedule.info(context: contextBytes, ephemeral: envelope.ephemeralPublicKey, recipient: recipientX963)
        let plaintext: [UInt8]
        do {
            let shared = try agreementKey.sharedSecretFromKeyAgreement(with: epk)
            let key = try shared.hkdfDerivedSymmetricKey(salt: envelope.salt, sharedInfo: info, outputByteCount: 32)
            plaintext = try AESGCM.open(envelope.ciphertext, using: key, nonce: envelope.nonce, authenticating: contextBytes)
        } catch {
            throw ProtocolError(.decryptionFailed, "the ciphertext does not authenticate under this device's key")
        }
        guard !alreadyAccepted(context.eventID) else { throw ProtocolError(.replayed, "event_id was already accepted") }
        return plaintext
    }
}
