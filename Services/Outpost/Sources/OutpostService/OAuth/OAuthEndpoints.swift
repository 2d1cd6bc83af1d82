/// Where and as whom the outpost asks for OAuth 2 tokens: the registered
/// client and the authorization server's endpoints (RFC 6749, RFC 8628).
public struct OAuthEndpoints: Sendable, Equatable, Codable {
    /// The client id the operator or user registered (Google Cloud Console, Microsoft Entra).
    public var clientID: String
    /// Google's "client secret" of a Desktop app (not secret in an installed app, but sent); nil for a public client.
    public var clientSecret: String?
    /// The authorization endpoint the browser opens (authorization code grant).
    public var authorizationURL: String?
    /// The token endpoint: codes, device codes and refresh tokens are exchanged here.
    public var tokenURL: String
    /// The device authorization endpoint (RFC 8628 §3.1).
    public var deviceAuthorizationURL: String?
    /// Space-separated scopes asked for.
    public var scope: String
    /// A PEM CA bundle trusted for the endpoints instead of the system's (a private authorization server).
    public var caFile: String?

    public init(clientID: String, clientSecret: String? = nil, authorizationURL: String? = nil, tokenURL: String,
                deviceAuthorizationURL: String? = nil, scope: String, caFile: String? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authorizationURL = authorizationURL
        self.tokenURL = tokenURL
        self.deviceAuthorizationURL = deviceAuthorizationURL
        self.scope = scope
        self.caFile = caFile
    }

    /// Google's endpoints for an installed (Desktop) app with full IMAP access.
    public static func google(clientID: String, clientSecret: String?) -> OAuthEndpoints {
        OAuthEndpoints(clientID: clientID, clientSecret: clientSecret, authorizationURL: "https://accounts.google.com/o/oauth2/v2/auth",
                       tokenURL: "https://oauth2.googleapis.com/token", deviceAuthorizationURL: nil, scope: "https://mail.google.com/")
    }

    /// Microsoft identity platform endpoints (`tenant`: common, consumers, organizations or a tenant id) for IMAP.
    public static func microsoft(clientID: String, tenant: String = "common") -> OAuthEndpoints {
        let base = "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0"
        return OAuthEndpoints(clientID: clientID, clientSecret: nil, authorizationURL: base + "/authorize", tokenURL: base + "/token",
                              deviceAuthorizationURL: base + "/devicecode",
                              scope: "https://outlook.office.com/IMAP.AccessAsUser.All offline_access")
    }
}
