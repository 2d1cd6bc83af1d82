import Foundation
import OutpostService
import Synchronization
import TestSupport
import Testing

/// The OAuth 2 client against the test authorization server: what must be refused, and the device grant's pacing.
@Suite("Outpost: OAuth 2 flows (refusals, slow_down, expiry)", .serialized, .awaitedCleanup)
struct OAuthFlowTests {
    static let client = "mailwake-test-desktop.apps.example"

    static func endpoints(_ oauth: OAuthTestServer) -> OAuthEndpoints {
        OAuthEndpoints(clientID: client, authorizationURL: oauth.authorizationURL, tokenURL: oauth.tokenURL,
                       deviceAuthorizationURL: oauth.deviceAuthorizationURL, scope: "https://mail.google.com/")
    }

    @Test func aRedirectWithAnotherStateIsRefusedByTheLoopbackReceiver() async throws {
        let oauth = try await OAuthTestServer.start(clients: [(Self.client, nil)])
        let client = OAuthClient(endpoints: Self.endpoints(oauth))
        let receiver = try LoopbackRedirectReceiver()
        let pkce = try PKCE()
        let url = try client.authorizationURL(redirectURI: receiver.redirectURI, state: "the-state-of-this-request", pkce: pkce,
                                              loginHint: "alice")
        let waiting = Task { try await receiver.code(expectedState: "the-state-of-this-request", timeout: .seconds(20)) }
        let location = try #require(try await oauth.browse(url).1)
        #expect(location.contains("state=the-state-of-this-request"))
        let forged = location.replacingOccurrences(of: "state=the-state-of-this-request", with: "state=an-attackers-state")
        let (status, page) = try await oauth.get(forged)
        #expect(status == 400 && page.contains("state does not match"), "\(page)")
        await #expect(throws: OAuthError.self) { try await waiting.value }
        do { _ = try await waiting.value } catch let error as OAuthError { #expect(error.code == "state_mismatch") }
        // Pasted (headless) redirects are checked the same way.
        #expect(throws: OAuthError.self) { try AuthorizationRedirect.code(from: forged, expectedState: "the-state-of-this-request") }
        #expect(try AuthorizationRedirect.code(from: location, expectedState: "the-state-of-this-request").isEmpty == false)
    }

    @Test func theServerRefusesAWrongPKCEVerifierAndTakesTheRightOne() async throws {
        let oauth = try await OAuthTestServer.start(clients: [(Self.client, nil)])
        let client = OAuthClient(endpoints: Self.endpoints(oauth))
        let redirect = "http://127.0.0.1:9/"
        let pkce = try PKCE()
        let location = try #require(try await oauth.browse(try client.authorizationURL(redirectURI: redirect, state: "s1", pkce: pkce,
                                                                                       loginHint: nil)).1)
        let code = try AuthorizationRedirect.code(from: location, expectedState: "s1")
        let wrong = try PKCE().verifier
        do {
            _ = try await client.exchange(code: code, verifier: wrong, redirectURI: redirect)
            Issue.record("a wrong code_verifier was accepted")
        } catch {
            #expect(error.code == OAuthError.invalidGrant && error.message.contains("code_verifier does not match"), "\(error)")
        }
        #expect(oauth.events("token authorization_code invalid_grant pkce").count == 1)
        let second = try PKCE()
        let again = try #require(try await oauth.browse(try client.authorizationURL(redirectURI: redirect, state: "s2", pkce: second,
                                                                                    loginHint: nil)).1)
        let tokens = try await client.exchange(code: try AuthorizationRedirect.code(from: again, expectedState: "s2"),
                                               verifier: second.verifier, redirectURI: redirect)
        #expect(tokens.refreshToken != nil && tokens.tokenType == "Bearer")
        #expect(PKCE.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                "RFC 7636 Appendix B")
    }

    @Test func slowDownRaisesThePollingIntervalForGood() async throws {
        let oauth = try await OAuthTestServer.start(clients: [(Self.client, nil)], deviceExpires: 60,
                                                    slowDownOnce: true)   // a client deaf to slow_down ends at expired_token
        let client = OAuthClient(endpoints: Self.endpoints(oauth))
        let device = try await client.deviceAuthorization()
        #expect(device.interval == 1)
        let waits = Mutex<[Duration]>([])
        let polling = Task {
            try await client.pollForToken(device, wait: { d in waits.withLock { $0.append(d) }; try await Task.sleep(for: d) })
        }
        try await oauth.waitForEvent("device_poll authorization_pending")
        try await oauth.post("/test/approve", ["user_code": device.userCode])
        let tokens = try await polling.value
        #expect(tokens.refreshToken != nil)
        let intervals = waits.withLock { $0 }
        #expect(intervals.prefix(1) == [.seconds(1)] && intervals.last == .seconds(6),
                "after slow_down every wait is 5 s longer: \(intervals)")
        #expect(oauth.events("device_poll slow_down too-fast").isEmpty, "\(oauth.logText())")
        #expect(oauth.events("device_poll").contains { $0.hasPrefix("device_poll slow_down interval=6") })
    }

    @Test func anExpiredDeviceCodeEndsTheFlowWithAClearError() async throws {
        let oauth = try await OAuthTestServer.start(clients: [(Self.client, nil)], deviceExpires: 2)
        let client = OAuthClient(endpoints: Self.endpoints(oauth))
        let device = try await client.deviceAuthorization()
        do {
            _ = try await client.pollForToken(device)
            Issue.record("an expired device code gave a token")
        } catch {
            #expect(error.code == OAuthError.expiredToken && error.message.contains("expired before it was entered"), "\(error)")
        }
    }

    /// The code lives for the server's default ten minutes, so a loaded machine cannot turn the refusal into an expiry.
    @Test func aDeclinedDeviceCodeOrAnUnknownRefreshTokenEndsTheFlowWithAClearError() async throws {
        let oauth = try await OAuthTestServer.start(clients: [(Self.client, nil)])
        let client = OAuthClient(endpoints: Self.endpoints(oauth))
        let declined = try await client.deviceAuthorization()
        try await oauth.post("/test/deny", ["user_code": declined.userCode])
        do {
            _ = try await client.pollForToken(declined)
            Issue.record("a declined device code gave a token")
        } catch {
            #expect(error.code == OAuthError.accessDenied, "\(error)")
        }
        // A refresh token the server does not know (revoked) is invalid_grant.
        do {
            _ = try await client.refresh("rt-not-issued")
            Issue.record("an unknown refresh token was accepted")
        } catch {
            #expect(error.isInvalidGrant)
        }
    }
}
