import COpenSSLShims

extension P256.Signing {
    /// A P-256 private key for ECDSA-SHA256 signatures.
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

        /// Signs SHA-256(`message`) and returns the raw `r‖s` signature.
        public func signature(for message: [UInt8]) throws(CryptoError) -> ECDSASignature {
            var sig = [UInt8](repeating: 0, count: 64)
            let rc = message.withUnsafeBufferPointer { m in
                sig.withUnsafeMutableBufferPointer { s in
                    mw_ecdsa_sign(key.handle, m.baseAddress, m.count, s.baseAddress)
                }
            }
            guard rc == 1 else { throw CryptoError(.internalFailure, "ECDSA signing failed") }
            return ECDSASignature(uncheckedRaw: sig)
        }

        /// Signs an already computed SHA-256 digest.
        public func signature(forDigest digest: SHA256.Digest) throws(CryptoError) -> ECDSASignature {
            var sig = [UInt8](repeating: 0, count: 64)
            let rc = digest.bytes.withUnsafeBufferPointer { d in
                sig.withUnsafeMutableBufferPointer { s in
                    mw_ecdsa_sign_digest(key.handle, d.baseAddress, s.baseAddress)
                }
            }
            guard rc == 1 else { throw CryptoError(.internalFailure, "ECDSA signing failed") }
            return ECDSASignature(uncheckedRaw: sig)
        }
    }
}
