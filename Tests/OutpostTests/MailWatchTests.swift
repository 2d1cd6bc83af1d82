import Foundation
import MailwakeIMAP
import MailwakeMail
import MailwakeProtocol
@testable import OutpostService
import StackSupport
import TestSupport
import Testing

/// Mail appended to a real Dovecot, Cyrus or Courier reaches the paired device through the
/// outpost, the relay and APNs: nothing missed, nothing repeated.
@Suite("Outpost: watching mailboxes over IMAP", .serialized, .awaitedCleanup)
struct MailWatchTests {
    // MARK: the watcher suite, against Dovecot, Cyrus and Courier

    @Test(arguments: IMAPServerKind.allCases)
    func aNewMessageReachesTheDeviceWithSenderSubjectAndCodeButExistingMailDoesNot(server: IMAPServerKind) async throws {
        let h = try await MailWatchHarness.start(server: server)
        try await h.append(subject: "Old mail from before the outpost watched")
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        let sent = MailWatchLatency.now()
        try await h.append(subject: "Your verification code", body: "Your code is 731904. It expires in 10 minutes.")
        let received = try await h.notifications(count: 1)
        try await MailWatchLatency.record("new message", server, h, subject: "Your verification code", since: sent)
        #expect(received.count == 1)
        #expect(received[0].from == .init(name: "Ada Lovelace", address: "ada@example.org"))
        #expect(received[0].subject == "Your verification code")
        #expect(received[0].code == "731904")
        #expect(received[0].mailbox == "personal" && received[0].folder == "INBOX")
        #expect(received[0].receivedAt > 1_700_000_000)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await h.allNotifications().count == 1, "the message that was there before is not notified")
        let endpoint = IMAPEndpoint(host: "localhost", port: h.server.imapsPort, security: .implicitTLS, caFile: h.server.caFile)
        let flags = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: MailWatchHarness.user, password: MailWatchHarness.password))
            _ = try client.examine("INBOX")
            return try client.flags(try client.uids(after: 0))
        }
        #expect(flags.count == 2 && flags.values.allSatisfy { !$0.contains("\\seen") }, "the outpost leaves messages unread: \(flags)")
    }

    @Test(arguments: IMAPServerKind.allCases)
    func aKilledConnectionMissesNothingRepeatsNothingAndIdlesAgain(server: IMAPServerKind) async throws {
        let h = try await MailWatchHarness.start(server: server)
        h.startWatching()
        let before = try await h.waitForWatchState(.idle)
        let sent = MailWatchLatency.now()
        try await h.append(subject: "one")
        _ = try await h.notifications(count: 1)
        try await MailWatchLatency.record("connection killed: before", server, h, subject: "one", since: sent)
        try await h.server.kick(MailWatchHarness.user)
        try await h.append(subject: "two")   // likely while the watcher is reconnecting
        try await h.append(subject: "three")
        let received = try await h.notifications(count: 3)
        // Idle again on a new connection, and new mail still arrives.
        let again = try await h.waitForWatchState(.idle)
        #expect(again.stateSince >= before.stateSince)
        let later = MailWatchLatency.now()
        try await h.append(subject: "four")
        _ = try await h.notifications(count: 4)
        try await MailWatchLatency.record("connection killed: idle again", server, h, subject: "four", since: later)
        try await Task.sleep(for: .seconds(1))
        let subjects1 = try await h.allNotifications().map(\.subject)
        #expect(subjects1 == ["one", "two", "three", "four"])
        #expect(received.count == 3)
    }

    @Test(arguments: IMAPServerKind.allCases)
    func aServerRestartMissesNothingAndRepeatsNothing(server: IMAPServerKind) async throws {
        let h = try await MailWatchHarness.start(server: server)
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "before the restart")
        _ = try await h.notifications(count: 1)
        await h.server.stopProcessAsync()
        _ = try await h.waitForWatchState(.retrying)
        var expected = ["before the restart"]
        // Mail delivered while IMAP is down (an MTA writing the Maildir); Cyrus's spool is its own.
        if h.server.deliversToMaildir {
            try h.server.deliverToMaildir(MailWatchHarness.user, MailWatchHarness.message(subject: "while the server was down", body: "x"))
            expected.append("while the server was down")
        }
        try await h.server.restart()
        _ = try await h.notifications(count: expected.count)
        _ = try await h.waitForWatchState(.idle)
        let sent = MailWatchLatency.now()
        try await h.append(subject: "after the restart")
        expected.append("after the restart")
        _ = try await h.notifications(count: expected.count)
        try await MailWatchLatency.record("server restarted", server, h, subject: "after the restart", since: sent)
        try await Task.sleep(for: .seconds(1))
        let subjects2 = try await h.allNotifications().map(\.subject)
        #expect(subjects2 == expected)
    }

    @Test(arguments: IMAPServerKind.allCases)
    func fiftyMessagesInABurstAllArriveExactlyOnce(server: IMAPServerKind) async throws {
        let h = try await MailWatchHarness.start(server: server)
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        let endpoint = IMAPEndpoint(host: "localhost", port: h.server.imapsPort, security: .implicitTLS, caFile: h.server.caFile)
        let sent = MailWatchLatency.now()
        try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: MailWatchHarness.user, password: MailWatchHarness.password))
            for i in 1...50 { try client.append(MailWatchHarness.message(subject: "burst \(i)", body: "n"), to: "INBOX") }
        }
        _ = try await h.notifications(count: 50, timeout: 60)
        try await MailWatchLatency.record("50 in a burst (last)", server, h, subject: "burst 50", since: sent)
        try await Task.sleep(for: .seconds(1))
        let subjects = try await h.allNotifications().map(\.subject)
        #expect(subjects.count == 50)
        #expect(Set(subjects) == Set((1...50).map { "burst \($0)" }))
    }

    @Test(arguments: IMAPServerKind.allCases)
    func encodedHeadersInSeveralCharsetsArriveDecoded(server: IMAPServerKind) async throws {
        let h = try await MailWatchHarness.start(server: server)
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        let fixtures = RepositoryPaths.root.appendingPathComponent("Tests/Fixtures/mail")
        let names = ["gb2312-code.eml", "iso-2022-jp-code.eml", "koi8-r-order.eml"]
        let sent = MailWatchLatency.now()
        for name in names {
            // Lines end in CRLF over IMAP (RFC 3501 §4.3; Cyrus refuses bare newlines), as a mail client sends them.
            let text = String(decoding: try Data(contentsOf: fixtures.appendingPathComponent(name)), as: UTF8.self)
            try await h.append(Array(text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n").utf8))
        }
        let received = try await h.notifications(count: 3)
        let expected = try names.map { name in
            try MessageSummary(rfc822: Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))).subject
        }
        try await MailWatchLatency.record("RFC 2047 headers (last of 3)", server, h, subject: expected[2], since: sent)
        #expect(received.map(\.subject) == expected)
        #expect(expected.allSatisfy { !$0.contains("=?") && $0.unicodeScalars.contains { $0.value > 0x7F } })
    }

    @Test(arguments: IMAPServerKind.allCases)
    func aMultipartMessageGivesTheCodeFromItsTextPart(server: IMAPServerKind) async throws {
        let h = try await MailWatchHarness.start(server: server)
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        let message = Array("""
            From: Acme <no-reply@acme.example>\r
            To: alice@example.org\r
            Subject: Sign in to Acme\r
            Date: Sun, 29 Nov 2026 10:00:00 +0000\r
            Message-ID: <\(UUID().uuidString)@acme.example>\r
            MIME-Version: 1.0\r
            Content-Type: multipart/alternative; boundary="b1"\r
            \r
            --b1\r
            Content-Type: text/plain; charset=utf-8\r
            Content-Transfer-Encoding: quoted-printable\r
            \r
            Your sign-in code is 604381.=0D=0AIt expires in 10 minutes.\r
            --b1\r
            Content-Type: text/html; charset=utf-8\r
            \r
            <p>Your sign-in code is <b>604381</b>.</p>\r
            --b1--\r

            """.utf8)
        let sent = MailWatchLatency.now()
        try await h.append(message)
        let received = try await h.notifications(count: 1)
        try await MailWatchLatency.record("multipart", server, h, subject: "Sign in to Acme", since: sent)
        #expect(received.map(\.subject) == ["Sign in to Acme"])
        #expect(received.first?.code == "604381")
    }

    @Test(arguments: IMAPServerKind.allCases)
    func mailArrivingWhileTheOutpostIsStoppedIsNotifiedOnceWhenItStartsAgain(server: IMAPServerKind) async throws {
        let h = try await MailWatchHarness.start(server: server)
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "while running")
        _ = try await h.notifications(count: 1)
        await h.stopWatching()
        try await h.append(subject: "while stopped 1")
        try await h.append(subject: "while stopped 2")
        h.startWatching()
        _ = try await h.notifications(count: 3)
        _ = try await h.waitForWatchState(.idle)
        // And once more: a restart that finds nothing new notifies nothing.
        await h.stopWatching()
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await Task.sleep(for: .seconds(1))
        let subjects3 = try await h.allNotifications().map(\.subject)
        #expect(subjects3 == ["while running", "while stopped 1", "while stopped 2"])
    }

    // MARK: Dovecot only (doveadm, Dovecot's log, its configuration)

    @Test func aChangedUIDVALIDITYNotifiesWhatArrivedSinceTheLastSyncOnceAndOldMailNever() async throws {
        let h = try await MailWatchHarness.start()
        // Mail from two hours ago, there before the outpost first looked.
        try h.dovecot.deliverToMaildir(MailWatchHarness.user, MailWatchHarness.message(subject: "old", body: "x"),
                                       receivedAt: Date().addingTimeInterval(-7200))
        h.startWatching()
        let first = try await h.waitForWatchState(.idle)
        try await h.append(subject: "first")
        _ = try await h.notifications(count: 1)
        await h.stopWatching()
        // While the outpost is stopped, the folder is rebuilt (a new UIDVALIDITY) and new mail arrives.
        try await h.dovecot.setUIDValidity(MailWatchHarness.user, 424_242)
        try await h.append(subject: "while stopped, after the change")
        h.startWatching()
        _ = try await h.notifications(count: 2)
        let resynced = try await h.waitForWatchState(.idle)
        #expect(first.uidValidity != 424_242 && resynced.uidValidity == 424_242)
        try await h.append(subject: "second")
        _ = try await h.notifications(count: 3)
        try await Task.sleep(for: .seconds(1))
        // "first" was notified before the change and is not again (its Message-ID); "old" predates the last sync.
        let subjects4 = try await h.allNotifications().map(\.subject)
        #expect(subjects4 == ["first", "while stopped, after the change", "second"])
    }

    @Test func aServerWithoutIdleIsPolled() async throws {
        let h = try await MailWatchHarness.start(advertisesIdle: false)
        h.startWatching()
        _ = try await h.waitForWatchState(.polling)
        try await h.append(subject: "found by polling")
        let received = try await h.notifications(count: 1)
        #expect(received.map(\.subject) == ["found by polling"])
    }

    @Test func refusedCredentialsShowInTheFolderStateAndNotifyNothing() async throws {
        let h = try await MailWatchHarness.start(password: "not the password")
        h.startWatching()
        let state = try await h.waitForWatchState(.authenticationFailed)
        #expect(state.lastError?.contains("refused the credentials") == true)
        #expect(state.lastError?.contains("not the password") == false)
        try await h.append(subject: "nobody sees this")
        try await Task.sleep(for: .seconds(1))
        #expect(try await h.allNotifications().isEmpty)
    }

    @Test func theBodyIsFetchedOnlyWhenTheSubjectCarriesNoCode() async throws {
        // Dovecot's logout line counts the bodies a session fetched (body_count).
        func bodiesFetched(_ h: MailWatchHarness) -> [Int] {
            h.dovecot.log().split(separator: "\n").filter { $0.contains("Disconnected") }.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("body_count=") }.flatMap { Int($0.dropFirst("body_count=".count)) }
            }
        }
        let h = try await MailWatchHarness.start()
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "Your code is 480215", body: "Nothing to see here.")
        #expect(try await h.notifications(count: 1).first?.code == "480215")
        await h.stopWatching()
        try await Task.sleep(for: .milliseconds(300))
        #expect(!bodiesFetched(h).isEmpty && bodiesFetched(h).allSatisfy { $0 == 0 }, "\(bodiesFetched(h))")
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "Sign in", body: "Your code is 480216.")
        #expect(try await h.notifications(count: 2).last?.code == "480216")
        await h.stopWatching()
        try await Task.sleep(for: .milliseconds(300))
        #expect(bodiesFetched(h).contains(1), "\(bodiesFetched(h))")
    }

    @Test func anExpiredOAuthTokenIsRefreshedByRunningTheTokenCommandAgain() async throws {
        // Dovecot checks an XOAUTH2 token like a password: the "fresh" token is the user's password.
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-token-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: tokenFile) }
        try "expired-token\n".write(to: tokenFile, atomically: true, encoding: .utf8)
        let h = try await MailWatchHarness.start(tokenCommand: "cat '\(tokenFile.path)'")
        h.startWatching()
        let refused = try await h.waitForWatchState(.authenticationFailed)
        #expect(refused.lastError?.contains("refused the credentials") == true && refused.lastError?.contains("expired-token") == false)
        // The OAuth helper renews its token; the next login runs the command again.
        try (MailWatchHarness.password + "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
        // Dovecot delays answers to an address whose logins failed (auth penalty, up to 15 s each).
        _ = try await h.waitForWatchState(.idle, timeout: 60)
        try await h.append(subject: "after the refresh")
        #expect(try await h.notifications(count: 1).map(\.subject) == ["after the refresh"])
    }

    @Test func rulesHoldBackDeniedSendersAndRedactWhatTheyHide() async throws {
        let h = try await MailWatchHarness.start()
        var rule = NotificationRule(mailboxID: h.mailbox.id)
        rule.denySenders = ["*@spam.example"]
        rule.show = [.sender, .code]
        try await h.outpost.store.setRule(rule)
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "Cheap watches", from: "Spammer <offers@spam.example>")
        try await h.append(subject: "Secret project", body: "Your code is 553311.", from: "Ada <ada@example.org>")
        let received = try await h.notifications(count: 1)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await h.allNotifications().count == 1)
        #expect(received[0].from.address == "ada@example.org" && received[0].subject.isEmpty && received[0].code == "553311")
        #expect(try await h.outpost.store.folderState(mailboxID: h.mailbox.id, folder: "INBOX")?.lastUID == 2,
                "the held-back message is passed too")
    }

    // MARK: Courier only

    /// Courier keeps a folder's UIDVALIDITY only once it writes the folder:
    /// read-only sessions on a folder only an MTA ever wrote see a new one
    /// each time (and temporary UIDs). Mail that arrived while the outpost was
    /// away is notified all the same, once; mail from before its first look never;
    /// and a rebuilt folder (its UID database gone) follows the UIDVALIDITY rule.
    @Test func aNeverWrittenCourierFolderNotifiesMailThatArrivedWhileDisconnectedOnce() async throws {
        let h = try await MailWatchHarness.start(server: .courier)
        let courier = try #require(h.server as? CourierServer)
        try courier.deliverToMaildir(MailWatchHarness.user, MailWatchHarness.message(subject: "old", body: "x"),
                                     receivedAt: Date().addingTimeInterval(-7200))
        // The server's side of the issue: read-only sessions disagree on the never-written folder's UIDVALIDITY.
        let endpoint = IMAPEndpoint(host: "localhost", port: courier.imapsPort, security: .implicitTLS, caFile: courier.caFile)
        let validities = try await runOffPool {
            var seen: Set<UInt32> = []
            let deadline = Date().addingTimeInterval(10)
            while seen.count < 2, Date() < deadline {
                let client = try IMAPClient(endpoint: endpoint)
                defer { client.logout() }
                try client.authenticate(.password(user: MailWatchHarness.user, password: MailWatchHarness.password))
                seen.insert(try client.examine("INBOX").uidValidity)
                usleep(100_000)
            }
            return seen
        }
        #expect(validities.count == 2 && !courier.hasUIDDatabase(MailWatchHarness.user), "\(validities)")
        h.startWatching()
        let first = try await h.waitForWatchState(.idle)
        try courier.deliverToMaildir(MailWatchHarness.user, MailWatchHarness.message(subject: "while watching", body: "x"))
        _ = try await h.notifications(count: 1)
        await h.stopWatching()
        try courier.deliverToMaildir(MailWatchHarness.user, MailWatchHarness.message(subject: "while disconnected", body: "x"))
        h.startWatching()
        _ = try await h.notifications(count: 2)
        _ = try await h.waitForWatchState(.idle)
        // The folder is rebuilt while the outpost is stopped: a new UIDVALIDITY, and new mail.
        await h.stopWatching()
        try courier.forgetUIDs(MailWatchHarness.user)
        try courier.deliverToMaildir(MailWatchHarness.user, MailWatchHarness.message(subject: "after the rebuild", body: "x"))
        h.startWatching()
        _ = try await h.notifications(count: 3)
        let rebuilt = try await h.waitForWatchState(.idle)
        #expect(first.uidValidity != rebuilt.uidValidity)
        // A dropped connection: nothing repeated, idle again, new mail still arrives.
        try await courier.kick(MailWatchHarness.user)
        _ = try await h.waitForWatchState(.idle)
        try courier.deliverToMaildir(MailWatchHarness.user, MailWatchHarness.message(subject: "after the kick", body: "x"))
        _ = try await h.notifications(count: 4)
        try await Task.sleep(for: .seconds(1))
        let subjects = try await h.allNotifications().map(\.subject)
        #expect(subjects == ["while watching", "while disconnected", "after the rebuild", "after the kick"])
    }

    @Test func foldersBeyondTheConnectionLimitShareOnePolledConnection() {
        #expect(MailWatchService.connectionGroups(["INBOX", "Work"], limit: 10) == [["INBOX"], ["Work"]])
        #expect(MailWatchService.connectionGroups(["a", "b", "c", "d"], limit: 2) == [["a"], ["b", "c", "d"]])
        #expect(MailWatchService.connectionGroups(["a", "b"], limit: 1) == [["a", "b"]])
    }
}
