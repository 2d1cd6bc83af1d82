/// Why an IMAP operation failed. `code` says what a caller may do about it
/// (retry soon, back off long, tell the user); the message is for people and
/// never carries a credential.
public struct IMAPError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }
        /// The server could not be reached (DNS, refused, unreachable).
        public static let connect = Code(name: "connect")
        /// TLS failed or the certificate is not trusted.
        public static let tls = Code(name: "tls")
        /// The server refused the credentials.
        public static let authentication = Code(name: "authentication")
        /// The server answered NO or BAD to a command.
        public static let refused = Code(name: "refused")
        /// The server said something this client cannot parse.
        public static let protocolViolation = Code(name: "protocol")
        /// The connection closed (or the server said BYE).
        public static let closed = Code(name: "closed")
        public static let timedOut = Code(name: "timed-out")
        public static let cancelled = Code(name: "cancelled")
        /// A configuration the client refuses (e.g. no TLS to a remote host).
        public static let configuration = Code(name: "configuration")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
