public import MailwakeCrypto

/// Seals notifications for a paired device and signs them with the outpost
/// identity key (PROTOCOL.md §4). Used by the outpost and by tools.
public struct EnvelopeSealer: Sendable {
    /// The intermediate values of one sealing, for test vectors: only the
    /// sealing that asks for it (caller-supplied randomness) makes one.
    public struct Trace: Sendable {
        public let context: [UInt8]
        public let sharedSecret: [UInt8]
        public let info: [UInt8]
        public let key: [UInt8]
        public let signingInput: [UInt8]
    }

    /// The outpost identity key.
    public let identity: P256.Signing.PrivateKey

    public init(identity: P256.Signing.PrivateKey) { self.identity = identity }

    /// Seals `plaintext` for `recipient` with a fresh ephemeral key, salt and nonce.
    ///
    /// - Parameters:
    ///   - plaintext: the notification JSON (§6).
    ///   - recipient: the device's key-agreement public key, locked at pairing.
    ///   - context: audience, pairing, event, kind, time and activity.
    public func seal(_ plaintext: [UInt8], to recipient: P256.KeyAgreement.PublicKey,
                     context: EncryptionContext) throws(ProtocolError) -> Envelope {
        let ephemeral: P256.KeyAgreement.PrivateKey
        let salt: [UInt8], nonce: [UInt8]
        do {
            ephemeral = try P256.KeyAgreement.PrivateKey()
            salt = try SecureRandom.bytes(32)
            nonce = try SecureRandom.bytes(12)
        } catch {
            throw ProtocolError(.internalFailure, "could not generate the ephemeral key, salt or nonce")
        }
        // No trace: the shared secret and the AES key stay in wiped memory.
        return try seal(plaintext, to: recipient, context: context, ephemeralKey: ephemeral, salt: salt, nonce: nonce,
                        tracing: false).envelope
    }

    /// Seals with caller-supplied randomness and returns the trace (the
    /// shared secret and AES key copied out). Only for test vectors: reusing
    /// an ephemeral key, salt or nonce in production breaks confidentiality.
    public func seal(
        _ plaintext: [UInt8], to recipient: P256.KeyAgreement.PublicKey, context: EncryptionContext,
        ephemeralKey: P256.KeyAgreement.PrivateKey, salt: [UInt8], nonce: [UInt8]
    ) throws(ProtocolError) -> (envelope: Envelope, trace: Trace) {
        let (envelope, trace) = try seal(plaintext, to: recipient, context: context, ephemeralKey: ephemeralKey, salt: salt, nonce: nonce,
                                         tracing: true)
        guard let trace else { throw ProtocolError(.internalFailure, "no trace was made") }
        return (envelope, trace)
    }

    /// The sealing itself; the secrets are copied into a `Trace` only when `tracing`.
    func seal(
        _ plaintext: [UInt8], to recipient: P256.KeyAgreement.PublicKey, context: EncryptionContext,
        ephemeralKey: P256.KeyAgreement.PrivateKey, salt: [UInt8], nonce: [UInt8], tracing: Bool
    ) throws(ProtocolError) -> (envelope: Envelope, trace: Trace?) {
        try context.validate()
        guard salt.count == 32, nonce.count == 12 else { throw .malformed("salt must be 32 bytes and nonce 12 bytes") }
        let contextBytes = context.bytes
        let epk = ephemeralKey.publicKey.x963Representation
        let info = EnvelopeKeySchedule.info(context: contextBytes, ephemeral: epk, recipient: recipient.x963Representation)
        do {
            let shared = try ephemeralKey.sharedSecretFromKeyAgreement(with: recipient)
            let key = try shared.hkdfDerivedSymmetricKey(salt: salt, sharedInfo: info, outputByteCount: 32)
            let ct = try AESGCM.seal(plaintext, using: key, nonce: nonce, authenticating: contextBytes)
            guard ct.count <= Envelope.maxCiphertextBytes else {
                throw ProtocolError(.tooLarge, "plaintext too large for an envelope")
            }
            let input = Envelope.signingInput(context: contextBytes, epk: epk, salt: salt, nonce: nonce, ct: ct)
            let sig = try identity.signature(for: input)
            let envelope = Envelope(context: context, ephemeralPublicKey: epk, salt: salt, nonce: nonce, ciphertext: ct,
                                    signature: sig.rawRepresentation)
            guard tracing else { return (envelope, nil) }
            return (envelope,
                    Trace(context: contextBytes, sharedSecret: shared.rawBytesForTesting, info: info, key: key.rawBytes,
                          signingInput: input))
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw ProtocolError(.internalFailure, "sealing failed in OpenSSL")
        }
    }
}
