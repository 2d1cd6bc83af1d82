import Foundation
import MailwakeIMAP
import MailwakeProtocol
@testable import OutpostService
import StackSupport
import TestSupport
import Testing

/// Mail appended to a real Dovecot reaches the paired device through the
/// outpost, the relay and APNs: nothing missed, nothing repeated.
@Suite("Outpost: watching mailboxes over IMAP", .serialized, .awaitedCleanup)
struct MailWatchTests {
    @Test func aNewMessageReachesTheDeviceWithSenderSubjectAndCodeButExistingMailDoesNot() async throws {
        let h = try await MailWatchHarness.start()
        try await h.append(subject: "Old mail from before the outpost watched")
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "Your verification code", body: "Your code is 731904. It expires in 10 minutes.")
        let received = try await h.notifications(count: 1)
        #expect(received.count == 1)
        #expect(received[0].from == .init(name: "Ada Lovelace", address: "ada@example.org"))
        #expect(received[0].subject == "Your verification code")
        #expect(received[0].code == "731904")
        #expect(received[0].mailbox == "personal" && received[0].folder == "INBOX")
        #expect(received[0].receivedAt > 1_700_000_000)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await h.allNotifications().count == 1, "the message that was there before is not notified")
        let flags = try await h.dovecot.doveadm(["fetch", "-u", MailWatchHarness.user, "flags", "mailbox", "INBOX"])
        #expect(!flags.contains("\\Seen"), "the outpost leaves messages unread")
    }

    @Test func aKilledConnectionMissesNothingAndRepeatsNothing() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "one")
        _ = try await h.notifications(count: 1)
        try await h.dovecot.kick(MailWatchHarness.user)
        try await h.append(subject: "two")   // likely while the watcher is reconnecting
        try await h.append(subject: "three")
        let received = try await h.notifications(count: 3)
        try await Task.sleep(for: .seconds(1))
        #expect(try await h.allNotifications().map(\.subject) == ["one", "two", "three"])
        #expect(received.count == 3)
    }

    @Test func aDovecotRestartMissesNothingAndRepeatsNothing() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "before the restart")
        _ = try await h.notifications(count: 1)
        await h.dovecot.stopProcessAsync()
        _ = try await h.waitForWatchState(.retrying)
        // Mail delivered while IMAP is down (an MTA writing the Maildir).
        try h.dovecot.deliverToMaildir(MailWatchHarness.user, MailWatchHarness.message(subject: "while the server was down", body: "x"))
        try await h.dovecot.restart()
        _ = try await h.notifications(count: 2)
        try await h.append(subject: "after the restart")
        _ = try await h.notifications(count: 3)
        try await Task.sleep(for: .seconds(1))
        #expect(try await h.allNotifications().map(\.subject) == ["before the restart", "while the server was down", "after the restart"])
    }

    @Test func aChangedUIDVALIDITYResynchronizesWithoutNotifyingOldMail() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching()
        let first = try await h.waitForWatchState(.idle)
        try await h.append(subject: "first")
        _ = try await h.notifications(count: 1)
        try await h.dovecot.setUIDValidity(MailWatchHarness.user, 424_242)
        try await h.dovecot.kick(MailWatchHarness.user)
        // The watcher reconnects, sees the new UIDVALIDITY and takes the folder's end as its position.
        let deadline = ContinuousClock.now + .seconds(20)
        while try await h.outpost.store.folderState(mailboxID: h.mailbox.id, folder: "INBOX")?.uidValidity != 424_242 {
            guard ContinuousClock.now < deadline else { Issue.record("no resync"); return }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(first.uidValidity != 424_242)
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "second")
        _ = try await h.notifications(count: 2)
        try await Task.sleep(for: .seconds(1))
        #expect(try await h.allNotifications().map(\.subject) == ["first", "second"])
    }

    @Test func fiftyMessagesInABurstAllArriveExactlyOnce() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        let endpoint = IMAPEndpoint(host: "localhost", port: h.dovecot.imapsPort, security: .implicitTLS, caFile: h.dovecot.caFile)
        try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: MailWatchHarness.user, password: MailWatchHarness.password))
            for i in 1...50 { try client.append(MailWatchHarness.message(subject: "burst \(i)", body: "n"), to: "INBOX") }
        }
        _ = try await h.notifications(count: 50, timeout: 60)
        try await Task.sleep(for: .seconds(1))
        let subjects = try await h.allNotifications().map(\.subject)
        #expect(subjects.count == 50)
        #expect(Set(subjects) == Set((1...50).map { "burst \($0)" }))
    }

    @Test func encodedHeadersInSeveralCharsetsArriveDecoded() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        let fixtures = RepositoryPaths.root.appendingPathComponent("Tests/Fixtures/mail")
        for name in ["gb2312-code.eml", "iso-2022-jp-code.eml", "koi8-r-order.eml"] {
            try await h.append(Array(try Data(contentsOf: fixtures.appendingPathComponent(name))))
        }
        let received = try await h.notifications(count: 3)
        let expected = try (["gb2312-code.eml", "iso-2022-jp-code.eml", "koi8-r-order.eml"]).map { name in
            try MessageSummary(rfc822: Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))).subject
        }
        #expect(received.map(\.subject) == expected)
        #expect(expected.allSatisfy { !$0.contains("=?") && $0.unicodeScalars.contains { $0.value > 0x7F } })
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

    @Test func mailArrivingWhileTheOutpostIsStoppedIsNotifiedWhenItStartsAgain() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "while running")
        _ = try await h.notifications(count: 1)
        await h.stopWatching()
        try await h.append(subject: "while stopped 1")
        try await h.append(subject: "while stopped 2")
        h.startWatching()
        _ = try await h.notifications(count: 3)
        try await Task.sleep(for: .seconds(1))
        #expect(try await h.allNotifications().map(\.subject) == ["while running", "while stopped 1", "while stopped 2"])
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
        #expect(try await h.outpost.store.folderState(mailboxID: h.mailbox.id, folder: "INBOX")?.lastUID == 2, "the held-back message is passed too")
    }

    @Test func foldersBeyondTheConnectionLimitShareOnePolledConnection() {
        #expect(MailWatchService.connectionGroups(["INBOX", "Work"], limit: 10) == [["INBOX"], ["Work"]])
        #expect(MailWatchService.connectionGroups(["a", "b", "c", "d"], limit: 2) == [["a"], ["b", "c", "d"]])
        #expect(MailWatchService.connectionGroups(["a", "b"], limit: 1) == [["a", "b"]])
    }
}
