public import MailwakeErrors

/// Why an App Store signed payload (JWS) was refused.
///
/// `code.rawValue` is a stable problem code, suitable as the last segment of
/// an RFC 9457 problem `type`. Messages name the failed check only: they never
/// contain the JWS, its parts, tokens or certificate bytes.
public struct AppStoreVerificationError: CodedError, Hashable {
    /// A stable, extensible problem code.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Not three base64url parts, bad base64url, header not JSON, oversize.
        public static let jwsMalformed = Code(rawValue: "jws-malformed")
        /// The header's `alg` is not `ES256` (or carries `crit` parameters).
        public static let jwsUnsupportedAlgorithm = Code(rawValue: "jws-unsupported-algorithm")
        /// The header has no `x5c`, or not exactly three certificates.
        public static let x5cMissing = Code(rawValue: "x5c-missing")
        /// A certificate is not standard base64 of one DER certificate, or the
        /// leaf key is not a P-256 key.
        public static let certificateMalformed = Code(rawValue: "certificate-malformed")
        /// The leaf and intermediate do not chain to a configured root.
        public static let chainUntrusted = Code(rawValue: "chain-untrusted")
        /// A certificate of the chain was not valid at the payload's `signedDate`.
        public static let certificateExpired = Code(rawValue: "certificate-expired")
        /// The leaf or intermediate lacks Apple's marker extension.
        public static let oidMissing = Code(rawValue: "oid-missing")
        /// The ES256 signature does not verify with the leaf's key.
        public static let signatureInvalid = Code(rawValue: "signature-invalid")
        /// The payload's `bundleId` is not the configured one.
        public static let bundleMismatch = Code(rawValue: "bundle-mismatch")
        /// The payload's `environment` is not the configured one.
        public static let environmentMismatch = Code(rawValue: "environment-mismatch")
        /// A notification's `appAppleId` is not the configured one.
        public static let appAppleIdMismatch = Code(rawValue: "app-apple-id-mismatch")
        /// The payload is not the expected JSON object.
        public static let payloadMalformed = Code(rawValue: "payload-malformed")
        /// The verifier's configuration is unusable (raised at start, never per request).
        public static let configurationInvalid = Code(rawValue: "configuration-invalid")

        /// Every code above (each is registered as a `ProblemCode`; add a new one there too).
        public static let all: [Code] = [
            .jwsMalformed, .jwsUnsupportedAlgorithm, .x5cMissing, .certificateMalformed, .chainUntrusted, .certificateExpired,
            .oidMissing, .signatureInvalid, .bundleMismatch, .environmentMismatch, .appAppleIdMismatch, .payloadMalformed,
            .configurationInvalid,
        ]
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// A human-readable explanation without secrets.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The same error with its message prefixed by where it happened.
    func within(_ field: String) -> AppStoreVerificationError {
        AppStoreVerificationError(code, "\(field): \(message)")
    }
}
