/// An OAuth 2 error: an error response of the authorization server (RFC 6749
/// §5.2, RFC 8628 §3.5), or a transport or protocol failure.
public struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `error` code (`invalid_grant`, `authorization_pending`, …), or a local one (`transport`, `invalid_response`, `state_mismatch`,
    /// `timeout`).
    public let code: String
    /// What happened, for a person (the server's `error_description` when it sent one).
    public let message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The refresh token (or code) is no longer valid: revoked, expired or issued to another client.
    public var isInvalidGrant: Bool { code == "invalid_grant" }

    public static let authorizationPending = "authorization_pending"
    public static let slowDown = "slow_down"
    public static let expiredToken = "expired_token"
    public static let accessDenied = "access_denied"
    public static let invalidGrant = "invalid_grant"
}
