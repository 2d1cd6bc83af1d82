import COpenSSLShims

extension P256.KeyAgreement {
    /// A P-256 private key for ECDH.
    public struct PrivateKey: Sendable {
        let key: OpenSSLKey
        /// The public point, exported once at creation.
        private let publicX963: [UInt8]

        /// Generates a new random key.
        public init() throws(CryptoError) {
            try OpenSSL.ensureReady()
            key = try OpenSSLKey.generate()
            publicX963 = key.x963()
        }

        /// Imports a raw 32-byte big-endian scalar (CryptoKit `rawRepresentation`).
        public init(rawRepresentation: [UInt8]) throws(CryptoError) {
            try OpenSSL.ensureReady()
            key = try OpenSSLKey.privateKey(raw: rawRepresentation)
            publicX963 = key.x963()
        }

        /// Imports an unencrypted PKCS#8 `PrivateKeyInfo` in DER.
        public init(pkcs8DERRepresentation: [UInt8]) throws(CryptoError) {
            try OpenSSL.ensureReady()
            key = try OpenSSLKey.privateKey(pkcs8: pkcs8DERRepresentation)
            publicX963 = key.x963()
        }

        /// Imports a PEM `PRIVATE KEY` block (PKCS#8).
        public init(pemRepresentation: String) throws(CryptoError) {
            let der = try PEM.decode(pemRepresentation, label: "PRIVATE KEY")
            try self.init(pkcs8DERRepresentation: der)
        }

        /// The raw 32-byte scalar. Treat as secret.
        public var rawRepresentation: [UInt8] { key.rawPrivate() }
        /// PKCS#8 DER. Treat as secret.
        public var pkcs8DERRepresentation: [UInt8] { key.pkcs8() }
        /// PKCS#8 PEM. Treat as secret.
        public var pemRepresentation: String { PEM.encode(pkcs8DERRepresentation, label: "PRIVATE KEY") }

        /// The matching public key.
        public var publicKey: PublicKey {
            // Shares this key's handle: the point is valid by construction.
            PublicKey(sharing: key, x963Representation: publicX963)
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
