extension P256.Signing.PublicKey {
    /// The fixed DER prefix of a P-256 `SubjectPublicKeyInfo` (RFC 5480):
    /// SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (66 bytes) },
    /// followed by the 65-byte uncompressed point.
    private static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
        0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// Imports a DER `SubjectPublicKeyInfo` holding an uncompressed P-256
    /// point (what `openssl pkey -pubout -outform DER` writes; CryptoKit
    /// `derRepresentation`). Other curves, compressed points and trailing
    /// bytes are refused.
    public init(derRepresentation: [UInt8]) throws(CryptoError) {
        let prefix = Self.spkiPrefix
        guard derRepresentation.count == prefix.count + 65, derRepresentation.starts(with: prefix) else {
            throw CryptoError(.invalidEncoding, "not a DER SubjectPublicKeyInfo of an uncompressed P-256 key")
        }
        try self.init(x963Representation: Array(derRepresentation[prefix.count...]))
    }

    /// Imports a PEM `PUBLIC KEY` block (SubjectPublicKeyInfo).
    public init(pemRepresentation: String) throws(CryptoError) {
        try self.init(derRepresentation: PEM.decode(pemRepresentation, label: "PUBLIC KEY"))
    }

    /// The DER `SubjectPublicKeyInfo`.
    public var derRepresentation: [UInt8] { Self.spkiPrefix + x963Representation }

    /// The PEM `PUBLIC KEY` block.
    public var pemRepresentation: String { PEM.encode(derRepresentation, label: "PUBLIC KEY") }
}
