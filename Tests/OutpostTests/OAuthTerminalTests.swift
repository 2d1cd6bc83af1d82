import Foundation
import MailwakeIMAP
import OutpostService
import TestSupport
import Testing

/// `mailbox add --oauth` as a new user runs it, against the test OAuth 2
/// authorization server and a Dovecot that checks every XOAUTH2 token there
/// (`passdb oauth2`, RFC 7662 introspection): no helper program, no internet.
@Suite("Outpost: OAuth 2 in the terminal", .serialized, .awaitedCleanup)
struct OAuthTerminalTests {
    static let microsoftClient = "mailwake-test-entra-app"
    static let googleClient = "mailwake-test-desktop.apps.example"
    static let googleSecret = "GOCSPX-test-desktop-secret"

    /// The microsoft-like environment: client id, device and token endpoints at `server`.
    static func microsoft(_ server: OAuthTestServer) -> [String: String] {
        ["MAILWAKE_OUTPOST_OAUTH_MICROSOFT_CLIENT_ID": microsoftClient,
         "MAILWAKE_OUTPOST_OAUTH_MICROSOFT_DEVICE_URL": server.deviceAuthorizationURL,
         "MAILWAKE_OUTPOST_OAUTH_MICROSOFT_TOKEN_URL": server.tokenURL]
    }

    static func google(_ server: OAuthTestServer) -> [String: String] {
        ["MAILWAKE_OUTPOST_OAUTH_GOOGLE_CLIENT_ID": googleClient, "MAILWAKE_OUTPOST_OAUTH_GOOGLE_CLIENT_SECRET": googleSecret,
         "MAILWAKE_OUTPOST_OAUTH_GOOGLE_AUTHORIZATION_URL": server.authorizationURL,
         "MAILWAKE_OUTPOST_OAUTH_GOOGLE_TOKEN_URL": server.tokenURL]
    }

    static func addArguments(_ h: MailWatchHarness, label: String, provider: String) -> [String] {
        ["mailbox", "add", "--data-dir", h.outpost.directory.path, "--label", label, "--provider", provider, "--host", "localhost",
         "--port", String(h.dovecot.imapsPort), "--ca-file", h.dovecot.caFile, "--user", MailWatchHarness.user, "--oauth"]
    }

    @Test func aNewUserAddsMicrosoftAndGmailMailboxesWithOAuthInTheTerminalAndTheirMailIsNotified() async throws {
        let oauth = try await OAuthTestServer.start(clients: [(Self.microsoftClient, nil), (Self.googleClient, Self.googleSecret)],
                                                    slowDownOnce: true, rotate: true)
        let h = try await MailWatchHarness.start(oauth2IntrospectionURL: oauth.introspectionURL)

        // Microsoft-like: the device authorization grant. The user reads the code and URL, approves at the server.
        let device = try TerminalSession(Self.addArguments(h, label: "Work", provider: "microsoft"), environment: Self.microsoft(oauth))
        let uri = try await device.line { $0.hasPrefix("    http://127.0.0.1:\(oauth.port)/device") }
        let codeLine = try await device.line { $0.hasPrefix("    ") && $0.range(of: #"^    [0-9A-F]{4}-[0-9A-F]{4}$"#,
                                                                                options: .regularExpression) != nil }
        let userCode = codeLine.trimmingCharacters(in: .whitespaces)
        #expect(uri.trimmingCharacters(in: .whitespaces) == oauth.baseURL + "/device")
        try await oauth.waitForEvent("device_poll authorization_pending")
        #expect(try await oauth.post("/test/approve", ["user_code": userCode, "user": MailWatchHarness.user]).0 == 200)
        let (status, transcript) = await device.finish()
        print("--- terminal transcript (device code flow) ---\n\(transcript)--- end ---")
        #expect(status == 0, "\(transcript)")
        #expect(transcript.contains("and enter the code") && transcript.contains("checking every 1 s"), "\(transcript)")
        #expect(transcript.contains("The server asked to be polled more slowly: checking every 6 s."),
                "slow_down raises the interval: \(transcript)")
        #expect(transcript.contains("logged in:     yes") && transcript.contains("Mailbox 'Work' added"), "\(transcript)")
        #expect(oauth.events("device_poll slow_down too-fast").isEmpty, "the outpost waited the longer interval: \(oauth.logText())")
        #expect(oauth.events("device_poll").map { $0.split(separator: " ")[1] }.last == "granted")
        #expect(!oauth.events("introspect active alice").isEmpty, "Dovecot checked the token at the server")

        // Google-like: loopback redirect with PKCE; the test is the browser.
        let loopback = try TerminalSession(Self.addArguments(h, label: "Gmail", provider: "gmail"), environment: Self.google(oauth))
        let urlLine = try await loopback.line { $0.hasPrefix("    \(oauth.authorizationURL)?") }
        let url = urlLine.trimmingCharacters(in: .whitespaces)
        #expect(url.contains("code_challenge_method=S256") && url.contains("scope=https%3A%2F%2Fmail.google.com%2F")
            && url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"))
        let (found, location) = try await oauth.browse(url)
        #expect(found == 302)
        let redirect = try #require(location)
        #expect(redirect.hasPrefix("http://127.0.0.1:") && redirect.contains("code=") && redirect.contains("state="))
        let (page, text) = try await oauth.get(redirect)
        #expect(page == 200 && text.contains("authorized"), "\(text)")
        let (googleStatus, googleTranscript) = await loopback.finish()
        #expect(googleStatus == 0, "\(googleTranscript)")
        #expect(googleTranscript.contains("Mailbox 'Gmail' added"))
        #expect(!oauth.events("token authorization_code granted alice").isEmpty)

        // Both listed as built-in OAuth; no token in the output or in the database unsealed.
        let (_, listed) = try await MailboxCommandLineTests.run(["mailbox", "list", "--data-dir", h.outpost.directory.path])
        #expect(listed.contains("Work  alice @ localhost:\(h.dovecot.imapsPort) (implicit TLS), OAuth 2 (built-in)"), "\(listed)")
        #expect(listed.contains("Gmail  alice @ localhost:\(h.dovecot.imapsPort) (implicit TLS), OAuth 2 (built-in)"), "\(listed)")
        let path = h.outpost.directory.path + "/outpost.db"
        let database = try Data(contentsOf: URL(fileURLWithPath: path)) + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
            ?? Data())
        let issued = oauth.issuedTokens()
        #expect(issued.filter { $0.kind == "refresh" }.count == 2)
        for token in issued {
            #expect(database.range(of: Data(token.value.utf8)) == nil, "the \(token.kind) token is stored sealed")
            #expect(!transcript.contains(token.value) && !googleTranscript.contains(token.value), "no token in the terminal")
        }
        #expect(database.range(of: Data("mailwake_oauth_grant".utf8)) == nil)

        // Watching: the mail of both OAuth mailboxes is notified (with the password mailbox of the harness).
        h.startWatching()
        let mailboxes = try await h.outpost.store.mailboxes()
        for m in mailboxes { _ = try await h.waitForWatchState(.idle, mailboxID: m.id) }
        try await h.append(subject: "Your sign-in code")
        let notified = try await h.notifications(count: 3)
        #expect(Set(notified.map(\.mailbox)) == ["personal", "Work", "Gmail"], "\(notified.map(\.mailbox))")
        #expect(notified.allSatisfy { $0.subject == "Your sign-in code" })
    }

    @Test func onAHeadlessHostThePastedRedirectIsCheckedAndStored() async throws {
        let oauth = try await OAuthTestServer.start(clients: [(Self.googleClient, Self.googleSecret)])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-outpost-paste-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await OutpostCommandLineTests.run(["init", "--data-dir", dir])
        func add(_ label: String) throws -> TerminalSession {
            try TerminalSession(["mailbox", "add", "--data-dir", dir, "--label", label, "--provider", "gmail", "--user", "alice",
                                 "--oauth-paste", "--no-test"],
                                environment: Self.google(oauth))
        }
        // A forged state is refused.
        let forged = try add("Forged")
        let forgedURL = try await forged.line { $0.hasPrefix("    \(oauth.authorizationURL)?") }.trimmingCharacters(in: .whitespaces)
        let forgedLocation = try #require(try await oauth.browse(forgedURL).1)
        try await forged.type(forgedLocation.replacingOccurrences(of: "state=", with: "state=x"))
        let (forgedStatus, forgedOutput) = await forged.finish()
        #expect(forgedStatus != 0 && forgedOutput.contains("state does not match"), "\(forgedOutput)")

        // The address the browser was sent to, pasted: stored.
        let session = try add("Gmail")
        let url = try await session.line { $0.hasPrefix("    \(oauth.authorizationURL)?") }.trimmingCharacters(in: .whitespaces)
        _ = try await session.line { $0.contains("copy that whole address") }
        let location = try #require(try await oauth.browse(url).1)
        try await session.type(location)
        let (status, output) = await session.finish()
        #expect(status == 0 && output.contains("Mailbox 'Gmail' added"), "\(output)")
        let (_, listed) = try await MailboxCommandLineTests.run(["mailbox", "list", "--data-dir", dir])
        #expect(listed.contains("Gmail  alice @ imap.gmail.com:993 (implicit TLS), OAuth 2 (built-in)") && !listed.contains("Forged"),
                "\(listed)")
    }

    @Test func oauthWithoutAClientIdOrForAnotherProviderIsAClearError() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-outpost-oauth-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await OutpostCommandLineTests.run(["init", "--data-dir", dir])
        let base = ["mailbox", "add", "--data-dir", dir, "--label", "G", "--user", "alice", "--no-test"]
        let (noID, noIDText) = await (try TerminalSession(base + ["--provider", "gmail", "--oauth"], environment: [:])).finish()
        #expect(noID != 0 && noIDText.contains("set MAILWAKE_OUTPOST_OAUTH_GOOGLE_CLIENT_ID or pass --oauth-client-id"), "\(noIDText)")
        let (other, otherText) = await (try TerminalSession(base + ["--provider", "fastmail", "--oauth"], environment: [:])).finish()
        #expect(other != 0 && otherText.contains("--oauth needs --provider gmail or --provider outlook"), "\(otherText)")
        let (both,
             bothText) = await (try TerminalSession(base + ["--provider", "gmail", "--oauth", "--oauth2-token-command", "true"],
                                                    environment: [:])).finish()
        #expect(both != 0 && bothText.contains("exactly one of --password-stdin, --oauth and --oauth2-token-command"), "\(bothText)")
    }
}
