import Foundation
import MailwakeIMAP
import Testing
import TestSupport

/// Every IMAP read has a deadline: a server that goes silent (its process
/// stopped with SIGSTOP: the kernel still acknowledges, nothing answers) is
/// detected and its connection closed, never waited on forever.
@Suite(.awaitedCleanup) struct IMAPDeadlineTests {
    /// What `body` did against a frozen server.
    struct Outcome: Sendable {
        var code: IMAPError.Code?
        var elapsed: Duration
        var closed: Bool
        var logoutElapsed: Duration
    }

    @Test func aGreetingThatNeverComesTimesOut() async throws {
        let silent = try SilentTCPListener()
        var endpoint = IMAPEndpoint(host: "127.0.0.1", port: silent.port, security: .none)
        endpoint.connectTimeout = .milliseconds(500)
        let started = ContinuousClock.now
        let error = await runOffPoolError { [endpoint] in _ = try IMAPClient(endpoint: endpoint) }
        #expect(error?.code == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func aCommandToAStoppedServerTimesOutAndTheConnectionIsClosed() async throws {
        let outcome = try await againstAFrozenServer { client, freeze throws(IMAPError) in
            freeze()
            try client.noop()
        }
        #expect(outcome.code == .timedOut)
        #expect(outcome.elapsed >= .seconds(1) && outcome.elapsed < .seconds(10))
        #expect(outcome.closed)
        // Closed at the deadline: no LOGOUT is sent into the silence and waited for again.
        #expect(outcome.logoutElapsed < .milliseconds(500))
    }

    @Test func idleOnAStoppedServerEndsWhenDoneIsNotAnswered() async throws {
        let outcome = try await againstAFrozenServer { client, freeze throws(IMAPError) in
            // Frozen once the server has said "+ idling": the quiet wait runs out, then DONE is never answered.
            var frozen = false
            client.onResponse = {
                if !frozen { frozen = true; freeze() }
            }
            _ = try client.idle(maximum: .seconds(2))
        }
        #expect(outcome.code == .timedOut)
        // The quiet IDLE wait (2 s), then DONE's response deadline (1 s).
        #expect(outcome.elapsed >= .seconds(3) && outcome.elapsed < .seconds(15))
        #expect(outcome.closed)
        #expect(outcome.logoutElapsed < .milliseconds(500))
    }

    @Test func examineReportsHighestModSeqWhereCondstoreIsOffered() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        let endpoint = IMAPEndpoint(host: "127.0.0.1", port: dovecot.imapsPort, security: .implicitTLS, caFile: dovecot.caFile)
        let (before, after) = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            let before = try client.examine("INBOX").highestModSeq
            try client.append(DovecotClientTests.message, to: "INBOX")
            return (before, try client.examine("INBOX").highestModSeq)
        }
        #expect(before != nil)
        #expect(after != nil && after! > (before ?? 0))
        // Read elsewhere, then deleted: each moves it (the outpost skips a catch-up only when it has not moved).
        try await dovecot.doveadm(["flags", "add", "-u", "alice", "\\Seen", "mailbox", "INBOX", "all"])
        let read = try await highestModSeq(endpoint)
        #expect(read != nil && read! > (after ?? 0))
        try await dovecot.doveadm(["expunge", "-u", "alice", "mailbox", "INBOX", "all"])
        let expunged = try await highestModSeq(endpoint)
        #expect(expunged != nil && expunged! > (read ?? 0))
    }

    private func highestModSeq(_ endpoint: IMAPEndpoint) async throws -> UInt64? {
        try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "secret-1"))
            return try client.examine("INBOX").highestModSeq
        }
    }

    /// Logs in with a 1 s response deadline and runs `body`, timed; the
    /// `imap` process serving the connection is frozen when `body` calls its
    /// second argument (which returns once it is).
    private func againstAFrozenServer(_ body: @escaping @Sendable (IMAPClient, _ freeze: @escaping () -> Void) throws(IMAPError) -> Void)
        async throws -> Outcome {
        let dovecot = try await DovecotServer.start(users: [("alice", "secret-1")])
        var endpoint = IMAPEndpoint(host: "127.0.0.1", port: dovecot.imapsPort, security: .implicitTLS, caFile: dovecot.caFile)
        endpoint.commandTimeout = .seconds(1)
        let loggedIn = DispatchSemaphore(value: 0)
        let frozen = DispatchSemaphore(value: 0)
        let work = Task { [endpoint] in
            try await runOffPool { () throws -> Outcome in
                let client: IMAPClient
                do {
                    client = try IMAPClient(endpoint: endpoint)
                    try client.authenticate(.password(user: "alice", password: "secret-1"))
                    _ = try client.examine("INBOX")
                } catch {
                    loggedIn.signal()
                    throw error
                }
                let started = ContinuousClock.now
                var code: IMAPError.Code?
                do throws(IMAPError) {
                    try body(client) {
                        loggedIn.signal()
                        frozen.wait()
                    }
                } catch { code = error.code }
                let elapsed = ContinuousClock.now - started
                let closed = client.isClosed
                let logoutStarted = ContinuousClock.now
                client.logout()
                return Outcome(code: code, elapsed: elapsed, closed: closed, logoutElapsed: ContinuousClock.now - logoutStarted)
            }
        }
        await Blocking.run { loggedIn.wait() }
        do {
            let pid = try await dovecot.onlyIMAPProcess("alice")
            try dovecot.freeze(pid)
            let stopped = try await waitUntilStopped(pid)
            #expect(stopped)
        } catch {
            frozen.signal()
            _ = try? await work.value
            throw error
        }
        frozen.signal()
        return try await work.value
    }

    private func waitUntilStopped(_ pid: Int32) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while !DovecotServer.isStopped(pid), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return DovecotServer.isStopped(pid)
    }
}
