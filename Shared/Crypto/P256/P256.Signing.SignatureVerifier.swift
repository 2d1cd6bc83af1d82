extension P256.Signing {
    /// Something that checks ECDSA P-256 / SHA-256 signatures under one public key.
    public protocol SignatureVerifier: Sendable {
        /// Whether `signature` is a valid signature of SHA-256(`message`).
        func isValidSignature(_ signature: ECDSASignature, for message: [UInt8]) -> Bool
    }
}

extension P256.Signing.PublicKey: P256.Signing.SignatureVerifier {}
