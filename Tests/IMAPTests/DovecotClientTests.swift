import Foundation
import MailwakeIMAP
import Synchronization
import Testing
import TestSupport

/// The IMAP client against a real Dovecot (TLS with a test CA).
@Suite(.awaitedCleanup) struct DovecotClientTests {
    static let message = Array(("From: Ada <ada@example.org>\r\nTo: alice@example.org\r\nSubject: Your code is 493021\r\n" +
                                "Date: Sun, 29 Nov 2026 10:00:00 +0000\r\nMessage-ID: <1@example.org>\r\n\r\n" +
                                "Use 493021 to sign in.\r\n").utf8)

    private func endpoint(_ dovecot: DovecotServer, _ security: IMAPEndpoint.Security = .implicitTLS) -> IMAPEndpoint {
        IMAPEndpoint(host: "127.0.0.1", port: security == .implicitTLS ? dovecot.imapsPort : dovecot.imapPort, security: security,
                     caFile: dovecot.caFile)
    }

    @Test func implicitTLSLogsInAndListsCapabilities() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let endpoint = endpoint(dovecot)
        let (capabilities, tls) = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            return (client.capabilities, client.tlsVersion)
        }
        #expect(capabilities.contains("IDLE") && capabilities.contains("CONDSTORE") && capabilities.contains("QRESYNC"))
        #expect(tls?.hasPrefix("TLSv1.") == true)
    }

    @Test func startTLSUpgradesBeforeLoggingIn() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let endpoint = endpoint(dovecot, .startTLS)
        let tls = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            return client.tlsVersion
        }
        #expect(tls != nil)
    }

    @Test func aPasswordWithSpacesQuotesAndNonASCIIWorks() async throws {
        let password = "p äss \"w\\rd\" 密码"
        let dovecot = try await DovecotServer.start(users: [("alice", password)])
        let endpoint = endpoint(dovecot)
        #expect(await loginError(endpoint, .password(user: "alice", password: password)) == nil)
    }

    @Test func wrongCredentialsAreAnAuthenticationError() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let endpoint = endpoint(dovecot)
        #expect(await loginError(endpoint, .password(user: "alice", password: "wrong")) == .authentication)
    }

    @Test func xoauth2LogsInWithAToken() async throws {
        let dovecot = try await DovecotServer.start(users: [("bob", "ya29.token-value")])
        let endpoint = endpoint(dovecot)
        #expect(await loginError(endpoint, .oauth2(user: "bob", accessToken: "ya29.token-value")) == nil)
        #expect(await loginError(endpoint, .oauth2(user: "bob", accessToken: "expired")) == .authentication)
    }

    @Test func aCertificateFromAnotherCAIsRefused() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let other = try await runOffPool { try TestCertificates.make() }
        defer { other.remove() }
        var endpoint = endpoint(dovecot)
        endpoint.caFile = other.caCertificate.path
        let error = await runOffPoolError { [endpoint] in _ = try IMAPClient(endpoint: endpoint) }
        #expect(error?.code == .tls)
        #expect(error?.message.contains("not trusted") == true)
    }

    @Test func aNameTheCertificateDoesNotCoverIsRefused() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        // The certificate covers localhost, 127.0.0.1 and ::1, not this name.
        var endpoint = IMAPEndpoint(host: "127.0.0.1", port: dovecot.imapsPort, security: .implicitTLS, caFile: dovecot.caFile)
        endpoint.host = "127.0.0.2"
        let error = await runOffPoolError { [endpoint] in _ = try IMAPClient(endpoint: endpoint) }
        #expect(error?.code == .tls)
    }

    @Test func noTLSIsRefusedForARemoteHostBeforeConnecting() async throws {
        let error = await runOffPoolError { _ = try IMAPClient(endpoint: IMAPEndpoint(host: "imap.example.org", security: .none)) }
        #expect(error?.code == .configuration)
    }

    @Test func aClosedPortIsAConnectError() async throws {
        let port = try PortAllocator.freePort()
        let error = await runOffPoolError { _ = try IMAPClient(endpoint: IMAPEndpoint(host: "127.0.0.1", port: port,
                                                                                      security: .implicitTLS)) }
        #expect(error?.code == .connect)
    }

    @Test func examineAppendFetchReportsUIDsAndLeavesMessagesUnread() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let endpoint = endpoint(dovecot)
        let message = Self.message
        try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            let before = try client.examine("INBOX")
            #expect(before.exists == 0 && before.uidNext == 1)
            let uid = try client.append(message, to: "INBOX")
            #expect(uid == 1)
            let after = try client.examine("INBOX")
            #expect(after.uidValidity == before.uidValidity && after.uidNext == 2 && after.exists == 1)
            #expect(try client.uids(after: 0) == [1])
            #expect(try client.uids(after: 1) == [])   // `2:*` names message 1 too; it is filtered out
            let fetched = try client.fetchSummaries([1])
            #expect(fetched.count == 1)
            #expect(String(decoding: fetched[0].header, as: UTF8.self).contains("Subject: Your code is 493021"))
            #expect(String(decoding: fetched[0].textPrefix, as: UTF8.self) == "Use 493021 to sign in.\r\n")
            #expect(fetched[0].size == message.count && fetched[0].internalDate > 1_700_000_000)
        }
        let flags = try await dovecot.doveadm(["fetch", "-u", "alice", "flags", "mailbox", "INBOX"])
        #expect(!flags.contains("\\Seen"), "BODY.PEEK leaves the message unread: \(flags)")
    }

    @Test func theBodyPrefixIsBounded() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let endpoint = endpoint(dovecot)
        let big = Array("From: a@b\r\nSubject: big\r\n\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 200_000)
        let prefix = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            try client.append(big, to: "INBOX")
            _ = try client.examine("INBOX")
            return try client.fetchSummaries([1], textBytes: 4096)[0].textPrefix.count
        }
        #expect(prefix == 4096)
    }

    @Test func foldersAreListedWithDecodedNames() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        try await dovecot.createFolder("alice", "Entwürfe")
        let endpoint = endpoint(dovecot)
        let names = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            return try client.listFolders().map(\.name)
        }
        #expect(names.contains("INBOX") && names.contains("Entwürfe"))
    }

    @Test func idleWakesWhenAMessageArrivesAndTimesOutWhenQuiet() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let endpoint = endpoint(dovecot)
        let quiet = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            _ = try client.examine("INBOX")
            return try client.idle(maximum: .milliseconds(300))
        }
        #expect(quiet == .timedOut)
        let message = Self.message
        let woke = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            _ = try client.examine("INBOX")
            Thread {
                Thread.sleep(forTimeInterval: 0.3)
                if let other = try? IMAPClient(endpoint: endpoint) {
                    try? other.authenticate(.password(user: "alice", password: "secret-1"))
                    _ = try? other.append(message, to: "INBOX")
                    other.logout()
                }
            }.start()
            let outcome = try client.idle(maximum: .seconds(30))
            let uids = try client.uids(after: 0)
            _ = try client.fetchSummaries(uids)
            // Our own FETCH answers are not changes: the next IDLE waits quietly.
            let after = try client.idle(maximum: .milliseconds(500))
            return (outcome, uids, after)
        }
        #expect(woke.0 == .changed && woke.1 == [1])
        #expect(woke.2 == .timedOut)
    }

    @Test func cancellingFromAnotherThreadEndsAnIdleAtOnce() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let endpoint = endpoint(dovecot)
        let code = await runOffPoolCatching {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.close() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            _ = try client.examine("INBOX")
            let cancel = client.canceller
            Thread {
                Thread.sleep(forTimeInterval: 0.2)
                cancel()
            }.start()
            _ = try client.idle(maximum: .seconds(60))
        }
        #expect(code == .cancelled)
    }

    @Test func aKickedConnectionEndsTheIdleWithClosed() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let endpoint = endpoint(dovecot)
        let examined = Flag(), ended = Flag()
        // Kick once the session is selected (and again, in case the kick raced the IDLE command).
        let kicker = Task {
            try await examined.wait(timeout: .seconds(30))
            while !ended.isSet {
                try await dovecot.kick("alice")
                try await Task.sleep(for: .milliseconds(300))
            }
        }
        let code = await runOffPoolCatching {
            defer { ended.set() }
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.close() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            _ = try client.examine("INBOX")
            examined.set()
            _ = try client.idle(maximum: .seconds(30))
        }
        try await kicker.value
        #expect(code == .closed)
    }

    @Test func aServerWithoutIdleSaysSo() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")], advertisesIdle: false)
        let endpoint = endpoint(dovecot)
        let capabilities = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            return client.capabilities
        }
        #expect(!capabilities.contains("IDLE"))
    }
}

/// Connects and logs in with `credentials`; the IMAP error code, nil when it worked.
func loginError(_ endpoint: IMAPEndpoint, _ credentials: IMAPCredentials) async -> IMAPError.Code? {
    await runOffPoolCatching {
        let client = try IMAPClient(endpoint: endpoint)
        defer { client.logout() }
        try client.authenticate(credentials)
    }
}

/// Runs `body` off the pool and returns the IMAP error code it threw (nil when it did not throw).
func runOffPoolCatching(_ body: @escaping @Sendable () throws -> Void) async -> IMAPError.Code? {
    await runOffPoolError(body)?.code
}

func runOffPoolError(_ body: @escaping @Sendable () throws -> Void) async -> IMAPError? {
    do {
        try await runOffPool(body)
        return nil
    } catch let error as IMAPError {
        return error
    } catch {
        Issue.record("not an IMAPError: \(error)")
        return nil
    }
}
