import COpenSSLShims

extension P256.KeyAgreement {
    /// A P-256 private key for ECDH.
    public struct PrivateKey: Sendable {
        let pair: P256KeyPair
        var key: OpenSSLKey { pair.key }

        /// Generates a new random key.
        public init() throws(CryptoError) { pair = try .generate() }

        /// Imports a raw 32-byte big-endian scalar (CryptoKit `rawRepresentation`).
        public init(rawRepresentation: [UInt8]) throws(CryptoError) { pair = try .raw(rawRepresentation) }

        /// Imports an unencrypted PKCS#8 `PrivateKeyInfo` in DER.
        public init(pkcs8DERRepresentation: [UInt8]) throws(CryptoError) { pair = try .pkcs8(pkcs8DERRepresentation) }

        /// Imports a PEM `PRIVATE KEY` block (PKCS#8).
        public init(pemRepresentation: String) throws(CryptoError) { pair = try .pem(pemRepresentation) }

        /// The raw 32-byte scalar. Treat as secret.
        public var rawRepresentation: [UInt8] { pair.rawRepresentation }
        /// PKCS#8 DER. Treat as secret.
        public var pkcs8DERRepresentation: [UInt8] { pair.pkcs8DERRepresentation }
        /// PKCS#8 PEM. Treat as secret.
        public var pemRepresentation: String { pair.pemRepresentation }

        /// The matching public key.
        public var publicKey: PublicKey {
            // Shares this key's handle: the point is valid by construction.
            PublicKey(sharing: pair.key, x963Representation: pair.publicX963)
        }

        /// ECDH with `peer`: the 32-byte X coordinate of the shared point.
        public func sharedSecretFromKeyAgreement(with peer: PublicKey) throws(CryptoError) -> SharedSecret {
            var out = [UInt8](repeating: 0, count: 32)
            let rc = out.withUnsafeMutableBufferPointer { mw_ecdh(key.handle, peer.key.handle, $0.baseAddress) }
            guard rc == 1 else { throw CryptoError(.internalFailure, "ECDH derivation failed") }
            return SharedSecret(bytes: SecureBytes(consuming: &out))
        }
    }
}
