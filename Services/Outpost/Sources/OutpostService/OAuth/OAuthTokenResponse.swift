import Foundation

/// A successful token response (RFC 6749 §5.1).
public struct OAuthTokenResponse: Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    /// Seconds the access token lives (nil when the server did not say: taken as one hour).
    public var expiresIn: Int?
    /// A new refresh token (first grant, or a rotated one on refresh); nil keeps the old one.
    public var refreshToken: String?
    public var scope: String?

    /// Parses the JSON body; an access token and a Bearer token type are required.
    public static func parse(_ body: [UInt8]) throws(OAuthError) -> OAuthTokenResponse {
        guard let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw OAuthError("invalid_response", "the token endpoint answered with something other than a JSON object")
        }
        guard let access = json["access_token"] as? String, !access.isEmpty else {
            throw OAuthError("invalid_response", "the token response has no access_token")
        }
        let type = json["token_type"] as? String ?? ""
        guard type.lowercased() == "bearer" else {
            throw OAuthError("invalid_response", "the token response has token_type '\(type)', not Bearer")
        }
        let expires = (json["expires_in"] as? NSNumber)?.intValue ?? (json["expires_in"] as? String).flatMap { Int($0) }
        return OAuthTokenResponse(accessToken: access, tokenType: type, expiresIn: expires,
                                  refreshToken: (json["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : $0 },
                                  scope: json["scope"] as? String)
    }
}
