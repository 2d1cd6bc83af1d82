public import MailwakeErrors

/// An error from the cryptography module.
///
/// Messages name the failed check and never contain key material, plaintext
/// or other secret bytes.
public struct CryptoError: CodedError, Hashable {
    /// A stable, extensible error code.
    public struct Code: ErrorCode {
        /// The code as a short identifier, e.g. `invalid_public_key`.
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }


        /// A private key is malformed or out of range.
        public static let invalidPrivateKey = Code("invalid_private_key")
        /// A public key is not a valid P-256 point in X9.63 uncompressed form.
        public static let invalidPublicKey = Code("invalid_public_key")
        /// An input has the wrong length.
        public static let invalidLength = Code("invalid_length")
        /// A signature encoding (raw or DER) is malformed.
        public static let invalidSignatureEncoding = Code("invalid_signature_encoding")
        /// A DER or PEM container is malformed.
        public static let invalidEncoding = Code("invalid_encoding")
        /// AES-GCM authentication failed: wrong key, nonce, AAD or tampered data.
        public static let authenticationFailure = Code("authentication_failure")
        /// The system random generator failed.
        public static let randomFailure = Code("random_failure")
        /// OpenSSL reported an unexpected internal failure.
        public static let internalFailure = Code("internal_failure")
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// A human-readable explanation without secrets.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
