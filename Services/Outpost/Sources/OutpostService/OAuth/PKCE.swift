import MailwakeCrypto
import MailwakeProtocol

/// A Proof Key for Code Exchange pair (RFC 7636): a random verifier and its S256 challenge.
public struct PKCE: Sendable {
    /// 43 characters of base64url (32 random bytes, §4.1).
    public let verifier: String
    /// BASE64URL(SHA256(verifier)) (§4.2).
    public var challenge: String { Self.challenge(for: verifier) }
    public let method = "S256"

    public init() throws {
        verifier = Base64URL.encode(try SecureRandom.bytes(32))
    }

    /// The S256 challenge of `verifier`.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(Array(verifier.utf8)).bytes)
    }
}
