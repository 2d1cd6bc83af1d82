public import MailwakeCrypto
import Synchronization

/// Checks the `authorization` header of a request the way APNs does, and
/// remembers each JWT it has verified so a token used again costs a
/// dictionary look-up, not an ECDSA verification.
///
/// Tokens are cached by their exact string, rejected ones too; the age is
/// checked on every use. The cache is emptied when it reaches `cacheLimit`
/// (a provider uses one token for up to an hour, so it stays tiny).
public final class ProviderTokenVerifier: Sendable {
    public let keyID: String
    public let teamID: String
    public let publicKey: P256.Signing.PublicKey
    /// Tokens whose `iat` is older than this many seconds are expired.
    public let maxAge: Int64
    /// Tokens issued further than this in the future are refused as invalid.
    public let allowedClockSkew: Int64
    private let cacheLimit: Int
    private let cache = Mutex<[String: Result<ProviderToken, ProviderToken.Rejection>]>([:])
    private let signatureChecks = Atomic<Int>(0)

    public init(keyID: String, teamID: String, publicKey: P256.Signing.PublicKey, maxAge: Int64, allowedClockSkew: Int64 = 300,
                cacheLimit: Int = 4096) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
        self.maxAge = maxAge
        self.allowedClockSkew = allowedClockSkew
        self.cacheLimit = cacheLimit
    }

    /// The verified token of `authorization` at `now` (seconds), or the
    /// reason APNs would give: MissingProviderToken, InvalidProviderToken
    /// or ExpiredProviderToken.
    public func check(authorization: String?, now: Int64) -> Result<ProviderToken, APNsReason> {
        guard let authorization, !authorization.isEmpty else { return .failure(.missingProviderToken) }
        guard let jwt = Self.bearerToken(authorization) else { return .failure(.invalidProviderToken) }
        guard !jwt.isEmpty else { return .failure(.missingProviderToken) }
        let verdict = cache.withLock { $0[jwt] } ?? verifyAndRemember(jwt)
        switch verdict {
        case .failure:
            return .failure(.invalidProviderToken)
        case .success(let token):
            if token.issuedAt > now + allowedClockSkew { return .failure(.invalidProviderToken) }
            if now - token.issuedAt > maxAge { return .failure(.expiredProviderToken) }
            return .success(token)
        }
    }

    /// Why `authorization` was refused, for logs (never the token itself).
    public func explain(authorization: String?) -> String? {
        guard let authorization, let jwt = Self.bearerToken(authorization) else { return nil }
        if case .failure(let rejection) = cache.withLock({ $0[jwt] }) { return rejection.description }
        return nil
    }

    /// The token after `bearer` (any case) and spaces; nil for another scheme.
    static func bearerToken(_ authorization: String) -> String? {
        guard authorization.utf8.count >= 6, authorization.prefix(6).lowercased() == "bearer" else { return nil }
        return String(authorization.dropFirst(6).drop { $0 == " " })
    }

    private func verifyAndRemember(_ jwt: String) -> Result<ProviderToken, ProviderToken.Rejection> {
        let result: Result<ProviderToken, ProviderToken.Rejection>
        signatureChecks.add(1, ordering: .relaxed)
        do {
            result = .success(try ProviderToken.verify(jwt, keyID: keyID, teamID: teamID, publicKey: publicKey))
        } catch {
            result = .failure(error)
        }
        cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[jwt] = result
        }
        return result
    }

    /// How many JWTs have been verified (signature included) rather than
    /// found in the cache.
    public var verifications: Int { signatureChecks.load(ordering: .relaxed) }
}
