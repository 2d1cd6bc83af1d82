public import MailwakeCrypto

/// Checks an envelope's shape and its outpost signature, as the relay does
/// before accepting it. It never decrypts.
public enum EnvelopeVerifier {
    /// Throws `malformed`/`too_large` for shape and `bad_signature` when `sig`
    /// does not verify under `outpostKey`.
    public static func verify(_ envelope: Envelope, outpostKey: some P256.Signing.SignatureVerifier) throws(ProtocolError) {
        try envelope.validateShape()
        guard let sig = try? P256.Signing.ECDSASignature(rawRepresentation: envelope.signature),
              outpostKey.isValidSignature(sig, for: envelope.signingInput)
        else {
            throw ProtocolError(.badSignature, "envelope signature does not verify under the pinned outpost key")
        }
    }
}
