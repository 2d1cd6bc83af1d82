public import MailwakeErrors

/// A protocol check that failed.
///
/// `code` is stable and shared with the Python reference implementation and
/// the test vectors (`Tests/Vectors/README.md`); `message` says which check
/// failed without echoing secrets, keys or ciphertext.
public struct ProtocolError: CodedError, Hashable {
    /// A stable, extensible error code.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// JSON shape, unknown or missing field, bad base64url, wrong length,
        /// unsupported version, algorithm or kind.
        public static let malformed = Code("malformed")
        /// A public key that is not a valid P-256 point.
        public static let invalidKey = Code("invalid_key")
        /// A signature that does not verify.
        public static let badSignature = Code("bad_signature")
        /// `aud` is not the expected audience.
        public static let wrongAudience = Code("wrong_audience")
        /// `pairing_id` is not the expected pairing.
        public static let wrongPairing = Code("wrong_pairing")
        /// The AES-GCM tag check failed.
        public static let decryptionFailed = Code("decryption_failed")
        /// An event id or nonce that was already accepted.
        public static let replayed = Code("replayed")
        /// Past `exp`, or outside the allowed age.
        public static let expired = Code("expired")
        /// A request timestamp more than the allowed skew from now.
        public static let clockSkew = Code("clock_skew")
        /// A key id or device id that does not match its key, or an unknown key id.
        public static let wrongKey = Code("wrong_key")
        /// A pairing credential or management token that does not match.
        public static let badCredential = Code("bad_credential")
        /// A pairing consent whose `mac` does not verify under the pairing's `mac_key` (PROTOCOL.md §9).
        public static let badMAC = Code("bad_mac")
        /// A link or consent of an older protocol revision; the message names what to upgrade.
        public static let upgradeRequired = Code("upgrade_required")
        /// A management consent asking for a scope that was not offered.
        public static let scopeNotOffered = Code("scope_not_offered")
        /// An input over its size limit.
        public static let tooLarge = Code("too_large")
        /// Randomness or OpenSSL failed while producing a message.
        public static let internalFailure = Code("internal_failure")

        /// Every code above, for exhaustive checks (add a new code here too).
        public static let all: [Code] = [
            .malformed, .invalidKey, .badSignature, .wrongAudience, .wrongPairing, .decryptionFailed, .replayed, .expired, .clockSkew,
            .wrongKey, .badCredential, .badMAC, .upgradeRequired, .scopeNotOffered, .tooLarge, .internalFailure,
        ]
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }


    static func malformed(_ message: String) -> ProtocolError { ProtocolError(.malformed, message) }
}
