import COpenSSLShims

/// Process-wide OpenSSL state.
enum OpenSSL {
    /// Fetches the algorithms Mailwake uses once; every entry point calls it.
    static let ready: Bool = mw_crypto_init() == 1

    static func ensureReady() throws(CryptoError) {
        guard ready else {
            throw CryptoError(.internalFailure, "OpenSSL could not fetch SHA-256, AES-256-GCM, HMAC or HKDF")
        }
    }
}
