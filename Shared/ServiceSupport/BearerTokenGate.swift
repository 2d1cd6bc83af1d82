public import MailwakeHTTPServer
import MailwakeCrypto
import MailwakeHTTPTypes

/// Checks `Authorization: Bearer <token>` against configured tokens without
/// keeping them: only their SHA-256 digests are held, compared in constant time.
public struct BearerTokenGate: Sendable {
    private let digests: [[UInt8]]
    /// The problem code when the token is missing or wrong.
    let realm: String

    /// - Parameters:
    ///   - tokens: the accepted tokens (service tokens, the operator token).
    ///   - realm: a name for the `WWW-Authenticate` header.
    public init(tokens: [String], realm: String) {
        digests = tokens.filter { !$0.isEmpty }.map { SHA256.hash(Array($0.utf8)).bytes }
        self.realm = realm
    }

    /// Throws 401 unless the request carries one of the tokens.
    public func check(_ request: HTTPRequest) throws {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else {
            throw HTTPError(.unauthorized, code: .tokenRequired, detail: "this endpoint needs a bearer token",
                            headers: ["WWW-Authenticate": "Bearer realm=\"\(realm)\""])
        }
        let presented = SHA256.hash(Array(header.dropFirst("Bearer ".count).utf8)).bytes
        var matched = false
        for digest in digests where ConstantTime.equals(digest, presented) { matched = true }
        guard matched else {
            throw HTTPError(.unauthorized, code: .tokenInvalid, detail: "the bearer token is not valid here",
                            headers: ["WWW-Authenticate": "Bearer realm=\"\(realm)\", error=\"invalid_token\""])
        }
    }
}
