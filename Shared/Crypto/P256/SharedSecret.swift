/// The result of ECDH: the 32-byte X coordinate of the shared point.
///
/// Like CryptoKit's `SharedSecret`, it is meant to go through a KDF, never to
/// be used as a key directly. Its bytes are wiped when the last copy goes.
public struct SharedSecret: Sendable {
    let bytes: SecureBytes

    /// Derives a key with HKDF-SHA256 (RFC 5869) using this secret as IKM.
    public func hkdfDerivedSymmetricKey(salt: [UInt8], sharedInfo: [UInt8], outputByteCount: Int) throws(CryptoError) -> SymmetricKey {
        try bytes.withUnsafeBytes { (ikm) throws(CryptoError) -> SymmetricKey in
            try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: sharedInfo, outputByteCount: outputByteCount)
        }
    }

    /// A copy of the raw secret, for test vectors and interoperability checks only.
    public var rawBytesForTesting: [UInt8] { bytes.copyBytes() }
}
