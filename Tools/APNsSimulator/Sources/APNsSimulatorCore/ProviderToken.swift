import Foundation
public import MailwakeCrypto
import MailwakeProtocol

/// An APNs provider authentication token: a JWT signed with ES256
/// (header `{"alg":"ES256","kid":KEY_ID}`, claims `{"iss":TEAM_ID,"iat":SECONDS}`),
/// sent as `authorization: bearer <jwt>`.
public struct ProviderToken: Sendable, Hashable {
    /// The `kid` header: the ID of the key in the developer account.
    public let keyID: String
    /// The `iss` claim: the team ID.
    public let teamID: String
    /// The `iat` claim, seconds since 1970.
    public let issuedAt: Int64

    public init(keyID: String, teamID: String, issuedAt: Int64) {
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
    }

    /// The compact JWT, signed with `key`.
    public func signed(with key: P256.Signing.PrivateKey) throws -> String {
        var header = JSONWriter(capacity: 64)
        header.beginObject()
        header.string("alg", "ES256")
        header.string("kid", keyID)
        header.endObject()
        var claims = JSONWriter(capacity: 64)
        claims.beginObject()
        claims.string("iss", teamID)
        claims.int("iat", issuedAt)
        claims.endObject()
        let signingInput = Base64URL.encode(header.bytes) + "." + Base64URL.encode(claims.bytes)
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Why a JWT was not accepted (for logs; APNs answers InvalidProviderToken).
    public struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    private struct Header: Decodable {
        let alg: String
        let kid: String
    }

    private struct Claims: Decodable {
        let iss: String
        let iat: Int64
    }

    /// Parses `jwt` and checks its algorithm, key ID, issuer and signature.
    /// The age is the caller's business (it changes with time, the rest does not).
    public static func verify(_ jwt: String, keyID: String, teamID: String,
                              publicKey: P256.Signing.PublicKey) throws(Rejection) -> ProviderToken {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]),
              let claimBytes = Base64URL.decode(parts[1]),
              let signatureBytes = Base64URL.decode(parts[2])
        else { throw Rejection("not a compact JWT of three base64url parts") }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw Rejection("the JWT header is not JSON with alg and kid")
        }
        guard header.alg == "ES256" else { throw Rejection("alg is \(header.alg), not ES256") }
        guard header.kid == keyID else { throw Rejection("unknown key id") }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimBytes)) else {
            throw Rejection("the JWT claims are not JSON with iss and an integer iat")
        }
        guard claims.iss == teamID else { throw Rejection("iss is not the configured team id") }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes) else {
            throw Rejection("the signature is not 64 bytes r||s")
        }
        let signingInput = Array(jwt.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard publicKey.isValidSignature(signature, for: signingInput) else { throw Rejection("bad signature") }
        return ProviderToken(keyID: header.kid, teamID: claims.iss, issuedAt: claims.iat)
    }
}
