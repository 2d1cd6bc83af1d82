public import MailwakeErrors

/// Why a message could not be read for display.
public struct MessageBodyError: CodedError, Equatable {
    /// What went wrong, stable for callers.
    public struct Code: ErrorCode {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Not an RFC 5322 message.
        public static let notAMessage = Code(rawValue: "not_a_message")
        /// More nested multiparts than any real message has.
        public static let tooComplex = Code(rawValue: "too_complex")
    }

    public var code: Code
    public var message: String
    /// The message alone: it is shown to the reader as it is.
    public var description: String { message }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
