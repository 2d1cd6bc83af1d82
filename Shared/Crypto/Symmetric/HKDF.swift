import COpenSSLShims

/// HKDF with SHA-256 (RFC 5869), extract-then-expand.
public enum HKDF {
    /// Derives `outputByteCount` bytes from `inputKeyMaterial`.
    ///
    /// - Parameters:
    ///   - inputKeyMaterial: the IKM, non-empty.
    ///   - salt: the salt; empty means a string of zeros (RFC 5869 §2.2).
    ///   - info: context and application specific information.
    ///   - outputByteCount: 1 ... 8160 bytes.
    public static func deriveKey(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8],
                                 outputByteCount: Int) throws(CryptoError) -> SymmetricKey {
        try check(ikmCount: inputKeyMaterial.count, outputByteCount: outputByteCount)
        var (out, rc) = inputKeyMaterial.withUnsafeBytes { derive($0, salt: salt, info: info, outputByteCount: outputByteCount) }
        guard rc == 1 else { throw CryptoError(.internalFailure, "HKDF-SHA256 derivation failed") }
        return SymmetricKey(wiping: &out)
    }

    /// Derives `outputByteCount` bytes from raw input key material.
    public static func deriveKey(inputKeyMaterial ikm: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8],
                                 outputByteCount: Int) throws(CryptoError) -> SymmetricKey {
        try check(ikmCount: ikm.count, outputByteCount: outputByteCount)
        var (out, rc) = derive(ikm, salt: salt, info: info, outputByteCount: outputByteCount)
        guard rc == 1 else { throw CryptoError(.internalFailure, "HKDF-SHA256 derivation failed") }
        return SymmetricKey(wiping: &out)
    }

    private static func check(ikmCount: Int, outputByteCount: Int) throws(CryptoError) {
        guard outputByteCount > 0, outputByteCount <= 255 * 32 else {
            throw CryptoError(.invalidLength, "HKDF-SHA256 output must be 1...8160 bytes")
        }
        guard ikmCount > 0 else { throw CryptoError(.invalidLength, "HKDF input key material is empty") }
    }

    private static func derive(_ ikm: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8], outputByteCount: Int) -> ([UInt8], Int32) {
        var out = [UInt8](repeating: 0, count: outputByteCount)
        let rc = salt.withUnsafeBufferPointer { s in
            info.withUnsafeBufferPointer { i in
                out.withUnsafeMutableBufferPointer { o in
                    mw_hkdf_sha256(ikm.baseAddress?.assumingMemoryBound(to: UInt8.self), ikm.count,
                                   s.baseAddress, s.count, i.baseAddress, i.count, o.baseAddress, o.count)
                }
            }
        }
        return (out, rc)
    }
}
