public import MailwakeErrors

/// Why an IMAP operation failed. `code` says what a caller may do about it
/// (retry soon, back off long, tell the user); the message is for people and
/// never carries a credential.
public struct IMAPError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The server could not be reached (DNS, refused, unreachable).
        public static let connect = Code(rawValue: "connect")
        /// TLS failed or the certificate is not trusted.
        public static let tls = Code(rawValue: "tls")
        /// The server refused the credentials.
        public static let authentication = Code(rawValue: "authentication")
        /// The server answered NO or BAD to a command.
        public static let refused = Code(rawValue: "refused")
        /// The server said something this client cannot parse.
        public static let protocolViolation = Code(rawValue: "protocol")
        /// The connection closed (or the server said BYE).
        public static let closed = Code(rawValue: "closed")
        public static let timedOut = Code(rawValue: "timed-out")
        public static let cancelled = Code(rawValue: "cancelled")
        /// A configuration the client refuses (e.g. no TLS to a remote host).
        public static let configuration = Code(rawValue: "configuration")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
