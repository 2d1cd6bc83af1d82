import Foundation
public import MailwakeCore

/// What the outpost keeps of a built-in OAuth 2 authorization: the client and
/// endpoints, the refresh token and the last access token. Stored as the
/// mailbox's secret, sealed under `secret.key` like a password (a token
/// command is stored the same way; `decode` tells them apart).
public struct OAuthGrant: Sendable, Equatable, Codable {
    /// Marks the stored JSON as a grant (a token command never starts with it: `mailbox add` refuses one that does).
    static let marker = #"{"mailwake_oauth_grant":1,"#

    public var endpoints: OAuthEndpoints
    public var refreshToken: String
    public var accessToken: String?
    /// Unix seconds when `accessToken` expires.
    public var expiresAt: Int64?
    /// Unix seconds when it was issued (to refresh a short-lived token before its end).
    public var issuedAt: Int64?

    public init(endpoints: OAuthEndpoints, refreshToken: String, accessToken: String? = nil, expiresAt: Int64? = nil,
                issuedAt: Int64? = nil) {
        self.endpoints = endpoints
        self.refreshToken = refreshToken
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }

    /// The grant from a first token response (which must carry a refresh token).
    public init(endpoints: OAuthEndpoints, response: OAuthTokenResponse, now: Int64 = WallClock.seconds()) throws(OAuthError) {
        guard let refresh = response.refreshToken else {
            throw OAuthError("invalid_response",
                             "the provider issued no refresh token (is offline access / offline_access in the scopes?)")
        }
        self.init(endpoints: endpoints, refreshToken: refresh)
        update(with: response, now: now)
    }

    /// Takes a refreshed access token (and a rotated refresh token, when one came).
    public mutating func update(with response: OAuthTokenResponse, now: Int64 = WallClock.seconds()) {
        accessToken = response.accessToken
        issuedAt = now
        expiresAt = now + Int64(response.expiresIn ?? 3600)
        if let rotated = response.refreshToken { refreshToken = rotated }
    }

    /// Whether the access token is still good at `now`: it is renewed a fifth of
    /// its lifetime (at most 60 s) before it expires.
    public func accessTokenIsFresh(now: Int64) -> Bool {
        guard accessToken != nil, let expiresAt else { return false }
        let lifetime = expiresAt - (issuedAt ?? (expiresAt - 3600))
        return now < expiresAt - min(60, max(0, lifetime / 5))
    }

    /// The stored form (the secret sealed in the database).
    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
        return Self.marker + body.dropFirst()
    }

    /// The grant stored in `secret`, or nil when it is a token command.
    public static func decode(_ secret: String) -> OAuthGrant? {
        guard secret.hasPrefix(marker) else { return nil }
        let json = "{" + secret.dropFirst(marker.count)
        return try? JSONDecoder().decode(OAuthGrant.self, from: Data(json.utf8))
    }

    /// Whether `secret` is meant as a grant (even one that no longer decodes).
    public static func isGrant(_ secret: String) -> Bool { secret.hasPrefix(marker) }
}
