import COpenSSLShims

/// Cryptographically secure random bytes from OpenSSL's DRBG.
public enum SecureRandom {
    /// Returns `count` random bytes.
    ///
    /// - Parameter count: the number of bytes; 0 gives an empty array.
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        precondition(count >= 0, "a byte count is never negative")
        var out = [UInt8](repeating: 0, count: count)
        let rc = out.withUnsafeMutableBufferPointer { mw_random_bytes($0.baseAddress, $0.count) }
        guard rc == 1 else { throw CryptoError(.randomFailure, "the random generator failed") }
        return out
    }
}
