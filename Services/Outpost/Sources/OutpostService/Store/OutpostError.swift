public import MailwakeErrors

/// An outpost operation that cannot go on, with one line that says why and
/// what to do; never a secret.
public struct OutpostError: CodedError {
    /// A stable, extensible error code.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The data directory is missing, not initialized, or not usable.
        public static let dataDirectory = Code("data_directory")
        /// `secret.key` is missing, unreadable, of the wrong size or too open.
        public static let secretKey = Code("secret_key")
        /// Sealed data does not open under this `secret.key` (wrong key or tampering).
        public static let sealedData = Code("sealed_data")
        /// `init` on a directory that already holds an outpost.
        public static let alreadyInitialized = Code("already_initialized")
        /// The relay is not configured yet.
        public static let relayNotConfigured = Code("relay_not_configured")
        /// A pairing did not complete (expired, refused, a consent that does not verify).
        public static let pairing = Code("pairing")
        /// The relay refused a request or could not be reached.
        public static let relay = Code("relay")
        /// The database could not be opened or used.
        public static let storage = Code("storage")
        /// A mailbox is unknown, duplicated, or its settings are not usable.
        public static let mailbox = Code("mailbox")
        /// A channel is unknown, duplicated, or its settings are not usable.
        public static let channel = Code("channel")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
