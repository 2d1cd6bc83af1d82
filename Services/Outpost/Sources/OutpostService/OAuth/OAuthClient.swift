import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes

/// Talks to an authorization server's token and device authorization
/// endpoints (RFC 6749 §4.1.3 and §6, RFC 8628 §3.4, RFC 7636 §4.5). Never logs
/// or prints a token.
public struct OAuthClient: Sendable {
    public let endpoints: OAuthEndpoints

    public init(endpoints: OAuthEndpoints) { self.endpoints = endpoints }

    /// Asks for a device code and user code (RFC 8628 §3.1).
    public func deviceAuthorization() async throws(OAuthError) -> DeviceAuthorization {
        guard let url = endpoints.deviceAuthorizationURL else {
            throw OAuthError("unsupported", "no device authorization endpoint is configured for this provider")
        }
        let (status, body) = try await post(url, ["client_id": endpoints.clientID, "scope": endpoints.scope])
        guard (200..<300).contains(status) else { throw Self.error(status: status, body: body, what: "the device authorization endpoint") }
        return try DeviceAuthorization.parse(body)
    }

    /// Polls the token endpoint until the user approves (RFC 8628 §3.4–3.5):
    /// `authorization_pending` waits `interval`, `slow_down` adds 5 s to it for
    /// good, `expired_token` and `access_denied` end it. `wait` sleeps (a test
    /// may watch the intervals); `onInterval` hears every changed interval.
    public func pollForToken(_ device: DeviceAuthorization,
                             wait: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                             onInterval: @Sendable (Int) -> Void = { _ in }) async throws(OAuthError) -> OAuthTokenResponse {
        var interval = device.interval
        let deadline = ContinuousClock.now + .seconds(device.expiresIn)
        while true {
            do { try await wait(.seconds(interval)) } catch { throw OAuthError("cancelled", "stopped waiting for the authorization") }
            let (status, body) = try await post(endpoints.tokenURL, [
                "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": device.deviceCode,
                "client_id": endpoints.clientID,
            ].merging(secretField) { a, _ in a })
            if (200..<300).contains(status) { return try OAuthTokenResponse.parse(body) }
            let error = Self.error(status: status, body: body, what: "the token endpoint")
            switch error.code {
            case OAuthError.authorizationPending:
                break
            case OAuthError.slowDown:
                interval += 5
                onInterval(interval)
            case OAuthError.expiredToken:
                throw OAuthError(error.code, "the code expired before it was entered: run the command again")
            case OAuthError.accessDenied:
                throw OAuthError(error.code, "the authorization was declined at the provider")
            default:
                throw error
            }
            if ContinuousClock.now >= deadline { throw OAuthError(OAuthError.expiredToken,
                                                                  "the code expired before it was entered: run the command again") }
        }
    }

    /// Exchanges an authorization code and its PKCE verifier (RFC 6749 §4.1.3, RFC 7636 §4.5).
    public func exchange(code: String, verifier: String, redirectURI: String) async throws(OAuthError) -> OAuthTokenResponse {
        let (status, body) = try await post(endpoints.tokenURL, [
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI, "client_id": endpoints.clientID,
            "code_verifier": verifier,
        ].merging(secretField) { a, _ in a })
        guard (200..<300).contains(status) else { throw Self.error(status: status, body: body, what: "the token endpoint") }
        return try OAuthTokenResponse.parse(body)
    }

    /// A new access token for a refresh token (RFC 6749 §6); `invalid_grant` means it was revoked or expired.
    public func refresh(_ refreshToken: String) async throws(OAuthError) -> OAuthTokenResponse {
        let (status, body) = try await post(endpoints.tokenURL, [
            "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": endpoints.clientID,
        ].merging(secretField) { a, _ in a })
        guard (200..<300).contains(status) else { throw Self.error(status: status, body: body, what: "the token endpoint") }
        return try OAuthTokenResponse.parse(body)
    }

    /// The authorization request URL for the browser (RFC 6749 §4.1.1 with PKCE S256).
    public func authorizationURL(redirectURI: String, state: String, pkce: PKCE, loginHint: String?) throws(OAuthError) -> String {
        guard let base = endpoints.authorizationURL else { throw OAuthError("unsupported",
                                                                            "no authorization endpoint is configured for this provider") }
        var fields: [(String, String)] = [("response_type", "code"), ("client_id", endpoints.clientID), ("redirect_uri", redirectURI),
                                          ("scope", endpoints.scope), ("state", state), ("code_challenge", pkce.challenge),
                                          ("code_challenge_method", pkce.method), ("access_type", "offline"), ("prompt", "consent")]
        if let loginHint { fields.append(("login_hint", loginHint)) }
        return base + (base.contains("?") ? "&" : "?") + Self.form(fields)
    }

    private var secretField: [String: String] { endpoints.clientSecret.map { ["client_secret": $0] } ?? [:] }

    private func post(_ url: String, _ fields: [String: String]) async throws(OAuthError) -> (Int, [UInt8]) {
        guard url.hasPrefix("https://") || url.hasPrefix("http://127.0.0.1") || url.hasPrefix("http://localhost")
            || url.hasPrefix("http://[::1]") else {
            throw OAuthError("insecure_endpoint", "\(url) is not https (plain http is only allowed on this machine)")
        }
        var configuration = HTTPClient.Configuration()
        configuration.name = "oauth"
        configuration.caFile = endpoints.caFile
        configuration.httpVersion = .http1_1
        configuration.connectTimeout = .seconds(10)
        configuration.totalTimeout = .seconds(30)
        do {
            let http = try HTTPClient(configuration: configuration)
            defer { http.shutdown() }
            let response = try await http.execute(.init(method: .post, url: url, headers: [
                "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
            ], body: Array(Self.form(fields.sorted { $0.key < $1.key }).utf8)))
            return (Int(response.status.code), response.body)
        } catch {
            throw OAuthError("transport", "cannot reach \(Self.origin(url)): \(error)")
        }
    }

    /// `application/x-www-form-urlencoded` (RFC 6749 Appendix B).
    static func form(_ fields: [(String, String)]) -> String {
        fields.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    static func origin(_ url: String) -> String {
        URLComponents(string: url).map { "\($0.scheme ?? "")://\($0.host ?? "")\($0.port.map { ":\($0)" } ?? "")" }
            ?? "the authorization server"
    }

    /// An error response (RFC 6749 §5.2), or what else came back.
    static func error(status: Int, body: [UInt8], what: String) -> OAuthError {
        let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        guard let code = json?["error"] as? String, !code.isEmpty else {
            return OAuthError("http_\(status)", "\(what) answered HTTP \(status) without an OAuth error")
        }
        let detail = (json?["error_description"] as? String).map { ": " + String($0.prefix(300)) } ?? ""
        return OAuthError(code, "\(what) refused (\(code))\(detail)")
    }
}
