import Foundation
import MailwakeCore
import MailwakeIMAP
import OutpostService
import TestSupport
import Testing

/// The watcher's access token: refreshed before it expires, refreshed when
/// Dovecot refuses it (AUTHENTICATIONFAILED), and a revoked refresh token
/// leaves the mailbox failing with a clear message.
@Suite("Outpost: OAuth 2 token refresh", .serialized, .awaitedCleanup)
struct OAuthRefreshTests {
    static let client = "mailwake-test-entra-app"

    /// A grant for alice obtained with the device flow (approved at once).
    static func grant(_ oauth: OAuthTestServer) async throws -> OAuthGrant {
        let endpoints = OAuthEndpoints(clientID: client, tokenURL: oauth.tokenURL, deviceAuthorizationURL: oauth.deviceAuthorizationURL,
                                       scope: "https://outlook.office.com/IMAP.AccessAsUser.All offline_access")
        let client = OAuthClient(endpoints: endpoints)
        let device = try await client.deviceAuthorization()
        #expect(try await oauth.post("/test/approve", ["user_code": device.userCode, "user": MailWatchHarness.user]).0 == 200)
        return try OAuthGrant(endpoints: endpoints, response: try await client.pollForToken(device))
    }

    static func introspect(_ oauth: OAuthTestServer, _ token: String) async throws -> Bool {
        try await oauth.post("/introspect", ["token": token]).1.contains("\"active\": true")
    }

    @Test func accessTokensAreRefreshedBeforeExpiryAndAfterARefusalAndARevokedGrantFailsClearly() async throws {
        // The token lives above Dovecot's auth penalty (a refused login delays the next by 2-4 s).
        let oauth = try await OAuthTestServer.start(clients: [(Self.client, nil)], accessExpires: 8, rotate: true)
        var timing = WatchTiming()
        timing.backoff = .milliseconds(200)
        timing.maxBackoff = .seconds(1)
        timing.authenticationBackoff = .seconds(600)   // a failing mailbox stays failing while `mailbox list` looks
        timing.pollInterval = .seconds(1)
        let h = try await MailWatchHarness.start(timing: timing, oauth2IntrospectionURL: oauth.introspectionURL)
        let grant = try await Self.grant(oauth)
        let endpoint = IMAPEndpoint(host: "localhost", port: h.dovecot.imapsPort, security: .implicitTLS, caFile: h.dovecot.caFile)
        let work = try await h.outpost.store.addMailbox(MailboxRecord(label: "Work", endpoint: endpoint, username: MailWatchHarness.user,
                                                                      authentication: .oauth2), secret: grant.encoded())
        h.startWatching()
        _ = try await h.waitForWatchState(.idle, mailboxID: work.id)
        #expect(oauth.events("token refresh_token").isEmpty, "the fresh access token is used as it is")

        // Before expiry: once the first access token is dead at the server, a reconnect refreshes first and never presents it.
        let first = try #require(grant.accessToken)
        let deadline = ContinuousClock.now + .seconds(20)
        while try await Self.introspect(oauth, first) {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("the access token never expired") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let refusedBefore = oauth.events("introspect inactive").count
        try await h.dovecot.kick(MailWatchHarness.user)
        try await oauth.waitForEvent("token refresh_token granted", count: 1)
        _ = try await h.waitForWatchState(.idle, mailboxID: work.id)
        #expect(oauth.events("introspect inactive").count == refusedBefore,
                "the expired token was not sent to Dovecot: \(oauth.logText())")

        // The rotated refresh token was sealed again: the stored grant is the new one.
        let stored = try #require(OAuthGrant.decode(try await h.outpost.store.mailboxSecret(work.id)))
        #expect(stored.refreshToken != grant.refreshToken && stored.accessToken != first)

        // AUTHENTICATIONFAILED: the server drops the (unexpired) access token; the outpost refreshes and logs in again.
        let refreshes = oauth.events("token refresh_token granted").count
        try await oauth.post("/test/drop-access", ["user": MailWatchHarness.user])
        try await h.dovecot.kick(MailWatchHarness.user)
        try await oauth.waitForEvent("token refresh_token granted", count: refreshes + 1)
        _ = try await h.waitForWatchState(.idle, mailboxID: work.id)
        try await h.append(subject: "after the refresh")
        let notified = try await h.notifications(count: 2)
        #expect(Set(notified.map(\.mailbox)) == ["personal", "Work"])

        // Revoked: invalid_grant leaves the mailbox failing, with a message that says what to do.
        try await oauth.post("/test/revoke-user", ["user": MailWatchHarness.user])
        try await h.dovecot.kick(MailWatchHarness.user)
        let failed = try await h.waitForWatchState(.authenticationFailed, mailboxID: work.id)
        #expect(failed.lastError?.contains("the OAuth 2 authorization of 'Work' was revoked or has expired (invalid_grant at " +
                                           "http://127.0.0.1:\(oauth.port))") == true,
                "\(String(describing: failed.lastError))")
        #expect(!oauth.events("token refresh_token invalid_grant").isEmpty)
        let heartbeat = HeartbeatService(store: h.outpost.store, client: h.outpost.client, outpostID: h.outpost.identity.id,
                                         interval: .seconds(60),
                                         logger: Logger(service: "outpost-test", level: .warning))
        #expect(try await heartbeat.counts().failing == 1, "the heartbeat counts the mailbox as failing")
        let (_, listed) = try await MailboxCommandLineTests.run(["mailbox", "list", "--data-dir", h.outpost.directory.path])
        #expect(listed.contains("INBOX: authentication-failed since") && listed.contains("was revoked or has expired (invalid_grant"),
                "\(listed)")
        let (_, status) = try await MailboxCommandLineTests.run(["status", "--data-dir", h.outpost.directory.path])
        #expect(status.contains("revoked or has expired"), "\(status)")
        for token in oauth.issuedTokens() { #expect(!listed.contains(token.value) && !status.contains(token.value)) }
    }
}
