import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeProtocol
import OutpostService

/// `mailbox add --oauth`: runs the provider's OAuth 2 flow in the terminal
/// (Microsoft: device code, RFC 8628; Google: loopback redirect with PKCE,
/// RFC 8252/7636, or a pasted redirect with `--oauth-paste`) and returns the
/// grant to store sealed. Tokens are never printed.
enum OAuthAuthorization {
    static let options: [OptionSpec] = [
        OptionSpec("oauth",
                   help: "Authorize with OAuth 2 here, in the terminal (Gmail: a browser URL and a loopback redirect; Microsoft: a code " +
                         "to enter); needs --provider gmail or outlook"),
        OptionSpec("oauth-paste",
                   help: "With --oauth on a host without a browser: open the printed URL anywhere, then paste the address the browser " +
                         "was sent to"),
        OptionSpec("oauth-flow", value: "FLOW", help: "device or loopback (default: device for Microsoft, loopback for Google)"),
        OptionSpec("oauth-client-id", value: "ID",
                   help: "The registered client id (default: MAILWAKE_OUTPOST_OAUTH_GOOGLE_CLIENT_ID or _MICROSOFT_CLIENT_ID)"),
        OptionSpec("oauth-client-secret", value: "S",
                   help: "Google's Desktop app client secret (default: MAILWAKE_OUTPOST_OAUTH_GOOGLE_CLIENT_SECRET)"),
        OptionSpec("oauth-authorization-url", value: "URL", help: "Override the authorization endpoint"),
        OptionSpec("oauth-token-url", value: "URL", help: "Override the token endpoint"),
        OptionSpec("oauth-device-url", value: "URL", help: "Override the device authorization endpoint"),
        OptionSpec("oauth-timeout", value: "SECONDS", help: "How long to wait for the browser's redirect (default 300)"),
    ]

    /// The preset a provider name means (`microsoft` is Outlook.com and Microsoft 365).
    static func presetName(_ name: String) -> String {
        let lower = name.lowercased()
        return ["microsoft", "office365", "microsoft365", "hotmail"].contains(lower) ? "outlook" : lower
    }

    /// Whether `args` asks for the built-in flow.
    static func requested(_ args: ParsedArguments) -> Bool { args.flag("oauth") || args.flag("oauth-paste") }

    /// Runs the flow for `provider` and returns the stored form of the grant.
    static func run(_ args: ParsedArguments, provider: String?, user: String) async throws -> String {
        guard let provider, provider == "gmail" || provider == "outlook" else {
            throw UsageError("--oauth needs --provider gmail or --provider outlook (microsoft); other servers: --oauth2-token-command")
        }
        let configuration = try settings(args)
        guard var endpoints = OAuthSettings.endpoints(provider: provider,
                                                      configuration) else { throw UsageError("no built-in OAuth 2 for \(provider)") }
        if let id = args.value("oauth-client-id") { endpoints.clientID = id }
        if let secret = args.value("oauth-client-secret") { endpoints.clientSecret = secret.isEmpty ? nil : secret }
        if let url = args.value("oauth-authorization-url") { endpoints.authorizationURL = url }
        if let url = args.value("oauth-token-url") { endpoints.tokenURL = url }
        if let url = args.value("oauth-device-url") { endpoints.deviceAuthorizationURL = url }
        let setting = provider == "gmail" ? "MAILWAKE_OUTPOST_OAUTH_GOOGLE_CLIENT_ID" : "MAILWAKE_OUTPOST_OAUTH_MICROSOFT_CLIENT_ID"
        guard !endpoints.clientID.isEmpty else {
            throw UsageError("--oauth needs a registered client id: set \(setting) or pass --oauth-client-id (docs/outpost.md, \"OAuth " +
                             "2 for Gmail and Microsoft\", shows how to register one)")
        }
        let flow = args.flag("oauth-paste") ? "paste" : (args.value("oauth-flow") ?? (provider == "outlook" ? "device" : "loopback"))
        let client = OAuthClient(endpoints: endpoints)
        let response: OAuthTokenResponse
        do {
            switch flow {
            case "device": response = try await device(client, user: user)
            case "loopback": response = try await loopback(client, user: user, timeout: .seconds(try timeout(args)))
            case "paste": response = try await paste(client, user: user)
            default: throw UsageError("--oauth-flow must be device or loopback")
            }
        } catch let error as OAuthError {
            throw OutpostCommandError("OAuth 2 authorization failed: \(error.message)")
        }
        let grant: OAuthGrant
        do { grant = try OAuthGrant(endpoints: endpoints,
                                    response: response) } catch { throw OutpostCommandError("OAuth 2 authorization failed: " +
                                                                                            "\(error.message)") }
        say("Authorized: the provider issued an access token and a refresh token (the refresh token is stored sealed under secret.key).")
        return grant.encoded()
    }

    private static func timeout(_ args: ParsedArguments) throws(UsageError) -> Int64 {
        let seconds = try args.int64("oauth-timeout") ?? 300
        guard (1...3600).contains(seconds) else { throw UsageError("--oauth-timeout must be 1–3600 seconds") }
        return seconds
    }

    /// RFC 8628: show the code and the URL, poll until the user approves.
    private static func device(_ client: OAuthClient, user: String) async throws -> OAuthTokenResponse {
        let authorization = try await client.deviceAuthorization()
        say("To let this outpost read the mail of \(user), open")
        say("")
        say("    \(authorization.verificationURI)")
        say("")
        say("in a browser (on any device) and enter the code")
        say("")
        say("    \(authorization.userCode)")
        say("")
        if let complete = authorization.verificationURIComplete { say("(or open \(complete), which has the code in it)") }
        say("Waiting for you to approve (the code expires in \(max(1, authorization.expiresIn / 60)) min; checking every " +
            "\(authorization.interval) s)…")
        return try await client.pollForToken(authorization,
                                             onInterval: { say("The server asked to be polled more slowly: checking every \($0) s.") })
    }

    /// RFC 8252 §7.3: a loopback listener takes the browser's redirect; PKCE binds the code to this process.
    private static func loopback(_ client: OAuthClient, user: String, timeout: Duration) async throws -> OAuthTokenResponse {
        let receiver = try LoopbackRedirectReceiver()
        defer { receiver.stop() }
        let pkce = try PKCE()
        let state = Base64URL.encode(try SecureRandom.bytes(16))
        let url = try client.authorizationURL(redirectURI: receiver.redirectURI, state: state, pkce: pkce, loginHint: user)
        say("Open this address in a browser on this machine and sign in as \(user):")
        say("")
        say("    \(url)")
        say("")
        say("Waiting for the browser to come back to \(receiver.redirectURI) (no browser here? use --oauth-paste)…")
        let code = try await receiver.code(expectedState: state, timeout: timeout)
        return try await client.exchange(code: code, verifier: pkce.verifier, redirectURI: receiver.redirectURI)
    }

    /// The loopback flow without a listener: the user opens the URL on another machine and pastes where the browser was sent.
    private static func paste(_ client: OAuthClient, user: String) async throws -> OAuthTokenResponse {
        let port: UInt16
        do {
            let probe = try LoopbackRedirectReceiver()   // a free port, closed again: the browser's redirect fails and shows the address
            port = probe.port
            probe.stop()
        }
        let redirectURI = "http://127.0.0.1:\(port)/"
        let pkce = try PKCE()
        let state = Base64URL.encode(try SecureRandom.bytes(16))
        let url = try client.authorizationURL(redirectURI: redirectURI, state: state, pkce: pkce, loginHint: user)
        say("Open this address in a browser (any machine) and sign in as \(user):")
        say("")
        say("    \(url)")
        say("")
        say("The browser then fails to load \(redirectURI)…: copy that whole address from its address bar and paste it here:")
        guard let line = await readLineOffPool(), !line.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw OAuthError("invalid_request", "nothing was pasted")
        }
        let code = AuthorizationRedirect.isResponse(line)
            ? try AuthorizationRedirect.code(from: line, expectedState: state)
            : line.trimmingCharacters(in: .whitespaces)
        return try await client.exchange(code: code, verifier: pkce.verifier, redirectURI: redirectURI)
    }

    /// One line of standard input, read on a thread of its own.
    private static func readLineOffPool() async -> String? {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: readLine(strippingNewline: true)) }
            thread.start()
        }
    }
}
