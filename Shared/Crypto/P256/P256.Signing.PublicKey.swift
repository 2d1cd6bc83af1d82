import COpenSSLShims

extension P256.Signing {
    /// A P-256 public key for verifying ECDSA-SHA256 signatures.
    ///
    /// Import validates the point: 65 bytes, `0x04` prefix, on the curve.
    public struct PublicKey: Sendable, Hashable {
        let key: OpenSSLKey
        /// The X9.63 uncompressed point `04‖X‖Y` (CryptoKit `x963Representation`).
        public let x963Representation: [UInt8]

        /// Imports and validates an X9.63 uncompressed point.
        public init(x963Representation: [UInt8]) throws(CryptoError) {
            try OpenSSL.ensureReady()
            key = try OpenSSLKey.publicKey(x963: x963Representation)
            self.x963Representation = x963Representation
        }

        /// Whether `signature` is a valid signature of SHA-256(`message`).
        public func isValidSignature(_ signature: ECDSASignature, for message: [UInt8]) -> Bool {
            let rc = message.withUnsafeBufferPointer { m in
                signature.rawRepresentation.withUnsafeBufferPointer { s in
                    mw_ecdsa_verify(key.handle, m.baseAddress, m.count, s.baseAddress, s.count)
                }
            }
            return rc == 1
        }

        /// Whether `signature` is valid for an already computed SHA-256 digest.
        public func isValidSignature(_ signature: ECDSASignature, forDigest digest: SHA256.Digest) -> Bool {
            let rc = digest.bytes.withUnsafeBufferPointer { d in
                signature.rawRepresentation.withUnsafeBufferPointer { s in
                    mw_ecdsa_verify_digest(key.handle, d.baseAddress, s.baseAddress, s.count)
                }
            }
            return rc == 1
        }

        /// Wraps the handle of a private key whose public point is already known.
        init(sharing key: OpenSSLKey, x963Representation: [UInt8]) {
            self.key = key
            self.x963Representation = x963Representation
        }

        public static func == (a: PublicKey, b: PublicKey) -> Bool {
            a.x963Representation == b.x963Representation
        }

        public func hash(into hasher: inout Hasher) { x963Representation.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
}
