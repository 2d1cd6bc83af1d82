import COpenSSLShims

/// AES-256-CBC with PKCS#7 padding. Not authenticated: only for peers whose
/// format requires it (Bark's push encryption); Mailwake's own data uses AES-GCM.
public enum AESCBC {
    public static let ivByteCount = 16

    /// Encrypts `plaintext` (padded) with a 32-byte key and a 16-byte IV.
    public static func encrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws(CryptoError) -> [UInt8] {
        try run(encrypt: true, plaintext, key: key, iv: iv)
    }

    /// Decrypts and removes the padding; throws on a wrong key or damaged data (bad padding).
    public static func decrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !ciphertext.isEmpty,
              ciphertext.count % 16 == 0 else { throw CryptoError(.invalidLength, "AES-CBC ciphertext is not whole blocks") }
        return try run(encrypt: false, ciphertext, key: key, iv: iv)
    }

    private static func run(encrypt: Bool, _ input: [UInt8], key: [UInt8], iv: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 32 else { throw CryptoError(.invalidLength, "AES-256-CBC needs a 32-byte key") }
        guard iv.count == ivByteCount else { throw CryptoError(.invalidLength, "AES-CBC needs a 16-byte IV") }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        let n = out.withUnsafeMutableBufferPointer { o in
            mw_aes256cbc(encrypt ? 1 : 0, key, iv, input, input.count, o.baseAddress)
        }
        guard n >= 0 else {
            throw encrypt ? CryptoError(.internalFailure, "AES-256-CBC encryption failed") : CryptoError(.authenticationFailure,
                "AES-256-CBC: wrong key or damaged data")
        }
        return Array(out.prefix(n))
    }
}
