/// Why a message could not be read for display.
public struct MessageBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, stable for callers.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Not an RFC 5322 message.
        public static let notAMessage = Code(rawValue: "not_a_message")
        /// More nested multiparts than any real message has.
        public static let tooComplex = Code(rawValue: "too_complex")
    }

    public var code: Code
    public var description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
