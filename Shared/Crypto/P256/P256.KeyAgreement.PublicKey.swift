extension P256.KeyAgreement {
    /// A P-256 public key for ECDH.
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

        /// Wraps the handle of a private key whose public point is already known.
        init(sharing key: OpenSSLKey, x963Representation: [UInt8]) {
            self.key = key
            self.x963Representation = x963Representation
        }

        public static func == (a: PublicKey, b: PublicKey) -> Bool {
            a.x963Representation == b.x963Representation
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(x963Representation) }
    }
}
