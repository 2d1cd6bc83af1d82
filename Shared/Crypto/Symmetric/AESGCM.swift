import COpenSSLShims

/// AES-256-GCM with a 12-byte nonce and a 16-byte tag appended to the ciphertext.
public enum AESGCM {
    /// The nonce length in bytes.
    public static let nonceByteCount = 12
    /// The tag length in bytes.
    public static let tagByteCount = 16

    /// Encrypts `plaintext` and returns `ciphertext‖tag`.
    ///
    /// - Parameters:
    ///   - plaintext: the bytes to encrypt.
    ///   - key: a 32-byte key.
    ///   - nonce: 12 bytes, never reused with the same key.
    ///   - aad: additional authenticated data.
    public static func seal(_ plaintext: [UInt8], using key: SymmetricKey, nonce: [UInt8],
                            authenticating aad: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce)
        var out = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        let rc = key.withUnsafeBytes { k in
            nonce.withUnsafeBufferPointer { n in
                aad.withUnsafeBufferPointer { a in
                    plaintext.withUnsafeBufferPointer { p in
                        out.withUnsafeMutableBufferPointer { o in
                            mw_aes256gcm_seal(k.baseAddress?.assumingMemoryBound(to: UInt8.self), n.baseAddress,
                                              a.baseAddress, a.count, p.baseAddress, p.count, o.baseAddress)
                        }
                    }
                }
            }
        }
        guard rc == 1 else { throw CryptoError(.internalFailure, "AES-256-GCM encryption failed") }
        return out
    }

    /// Decrypts `ciphertext‖tag`, or throws `authenticationFailure`.
    public static func open(_ sealed: [UInt8], using key: SymmetricKey, nonce: [UInt8],
                            authenticating aad: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce)
        guard sealed.count >= tagByteCount else {
            throw CryptoError(.invalidLength, "AES-GCM ciphertext is shorter than its 16-byte tag")
        }
        var out = [UInt8](repeating: 0, count: sealed.count - tagByteCount)
        let rc = key.withUnsafeBytes { k in
            nonce.withUnsafeBufferPointer { n in
                aad.withUnsafeBufferPointer { a in
                    sealed.withUnsafeBufferPointer { c in
                        out.withUnsafeMutableBufferPointer { o in
                            mw_aes256gcm_open(k.baseAddress?.assumingMemoryBound(to: UInt8.self), n.baseAddress,
                                              a.baseAddress, a.count, c.baseAddress, c.count, o.baseAddress)
                        }
                    }
                }
            }
        }
        switch rc {
        case 1: return out
        case 0: throw CryptoError(.authenticationFailure, "AES-GCM tag check failed")
        default: throw CryptoError(.internalFailure, "AES-256-GCM decryption failed")
        }
    }

    private static func checkSizes(key: SymmetricKey, nonce: [UInt8]) throws(CryptoError) {
        guard key.byteCount == 32 else { throw CryptoError(.invalidLength, "AES-256-GCM needs a 32-byte key") }
        guard nonce.count == nonceByteCount else { throw CryptoError(.invalidLength, "AES-GCM nonce must be 12 bytes") }
    }
}
