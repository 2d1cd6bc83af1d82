import COpenSSLShims

/// scrypt (RFC 7914, OpenSSL's `EVP_PBE_scrypt`): a key from a passphrase,
/// slow and memory-hard on purpose (about 128·r·2^logN bytes of memory).
public enum Scrypt {
    /// Derives a key of `outputByteCount` bytes from `passphrase` and `salt`.
    ///
    /// - Parameters:
    ///   - passphrase: the passphrase's bytes (UTF-8).
    ///   - salt: random bytes stored beside what the key protects.
    ///   - logN: log2 of the cost N, 1 ... 30.
    ///   - r: the block size, at least 1.
    ///   - p: the parallelisation, at least 1.
    ///   - outputByteCount: bytes of key wanted (32 for AES-256).
    public static func deriveKey(passphrase: [UInt8], salt: [UInt8], logN: Int, r: Int, p: Int,
                                 outputByteCount: Int = 32) throws(CryptoError) -> SymmetricKey {
        guard (1...30).contains(logN), r >= 1, p >= 1, r <= Int(UInt32.max), p <= Int(UInt32.max), outputByteCount > 0 else {
            throw CryptoError(.invalidLength, "scrypt parameters out of range (logN 1...30, r and p at least 1)")
        }
        // Derived straight into the key's wiped buffer.
        return try SymmetricKey(byteCount: outputByteCount) { (o) throws(CryptoError) in
            let rc = passphrase.withUnsafeBufferPointer { pass in
                salt.withUnsafeBufferPointer { s in
                    mw_scrypt(pass.baseAddress, pass.count, s.baseAddress, s.count, UInt32(logN), UInt32(r), UInt32(p),
                              o.baseAddress?.assumingMemoryBound(to: UInt8.self), o.count)
                }
            }
            guard rc == 1 else { throw CryptoError(.internalFailure, "scrypt derivation failed (out of memory?)") }
        }
    }
}
