public import MailwakeErrors

/// Why a request failed without an HTTP response.
///
/// Messages come from libcurl and this module; they name the host at most,
/// never the path, the request headers or the body (so no authorization
/// tokens, device tokens or payloads end up in logs through an error).
public struct HTTPClientError: CodedError, Hashable {
    /// A stable, extensible failure category.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The TCP connection could not be made (refused, unreachable, name not resolved).
        public static let connect = Code(rawValue: "connect")
        /// TLS failed: handshake, untrusted or invalid certificate, unreadable CA file.
        public static let tls = Code(rawValue: "tls")
        /// The server's public key matches none of `Configuration.pinnedPublicKeys`.
        public static let pinMismatch = Code(rawValue: "pin_mismatch")
        /// The connect timeout or the total timeout passed.
        public static let timeout = Code(rawValue: "timeout")
        /// The response body or header block exceeded its limit.
        public static let responseTooLarge = Code(rawValue: "response_too_large")
        /// libcurl aborted the transfer on request. Task cancellation throws
        /// `CancellationError` instead, as Swift code expects.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The client was shut down before the request finished.
        public static let shutdown = Code(rawValue: "shutdown")
        /// The HTTP/2 layer failed the request before any response arrived:
        /// the stream was refused (REFUSED_STREAM) or excluded by a GOAWAY's
        /// last stream id, which libcurl 7.88 retries only sometimes and
        /// otherwise reports as an HTTP/2 framing error. In the refused cases
        /// the server did not process the request. See `isRetryable`.
        public static let streamRefused = Code(rawValue: "stream_refused")
        /// The connection closed (or failed to send or receive) before any
        /// response byte arrived. See `isRetryable`.
        public static let connectionClosed = Code(rawValue: "connection_closed")
        /// The response started but was cut short (connection closed or
        /// stream reset mid-body). The server may have acted on the request.
        public static let incompleteResponse = Code(rawValue: "incomplete_response")
        /// The server violated HTTP (malformed reply, framing error, too many redirects).
        public static let `protocol` = Code(rawValue: "protocol")
        /// The request could not be sent as given (bad URL, method or header).
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// The client configuration is unusable (reported by `HTTPClient.init`).
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// Anything else libcurl reported (see `curlCode`).
        public static let other = Code(rawValue: "other")
        /// The server's address is not public and `publicAddressesOnly` is on.
        public static let refusedAddress = Code(rawValue: "refused_address")
    }

    public var code: Code
    /// A human-readable explanation, safe to log.
    public var message: String
    /// The libcurl result code (`CURLcode`) behind the failure, when there is one.
    public var curlCode: Int?

    public init(_ code: Code, _ message: String, curlCode: Int? = nil) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
    }

    /// True when no response was received and the request never reached
    /// the server's application, or may not have: connect failures, refused
    /// streams and connections closed before any response. Retrying on a
    /// fresh request is reasonable for idempotent requests and for requests
    /// the server deduplicates (APNs `apns-id`); note that after
    /// `connectionClosed` the server may, rarely, have acted already.
    public var isRetryable: Bool {
        code == .connect || code == .streamRefused || code == .connectionClosed
    }

    public var description: String {
        var s = "HTTPClientError(\(code)): \(message)"
        if let curlCode { s += " [curl \(curlCode)]" }
        return s
    }
}
