import Foundation
import MailwakeIMAP
import MailwakeProtocol
@testable import OutpostService
import Testing

@Suite("Outpost: notification rules")
struct NotificationRuleTests {
    static let mail = NotificationContent(mailbox: "personal", folder: "INBOX", from: .init(name: "Bank", address: "Alerts@Bank.example"),
                                          subject: "Your code", receivedAt: 1_764_400_000, code: "482913")

    @Test func theDefaultRuleNotifiesEverythingUnchanged() {
        #expect(NotificationRule().decide(Self.mail, minuteOfDay: 600) == .notify(Self.mail))
    }

    @Test func anOffRuleSuppresses() {
        var rule = NotificationRule()
        rule.enabled = false
        #expect(rule.decide(Self.mail, minuteOfDay: 600) == .suppress(reason: "notifications are off for this scope"))
    }

    @Test(arguments: [(1320, true), (1439, true), (0, true), (419, true), (420, false), (720, false), (1319, false)])
    func quietHoursWrapPastMidnight(_ minute: Int, _ quiet: Bool) {
        var rule = NotificationRule()
        rule.quietHours = NotificationRule.parseQuietHours("22:00-07:00")
        #expect((rule.decide(Self.mail, minuteOfDay: minute) == .suppress(reason: "quiet hours")) == quiet)
    }

    @Test func quietHoursWithinOneDay() {
        var rule = NotificationRule()
        rule.quietHours = NotificationRule.parseQuietHours("09:30-17:00")
        #expect(rule.decide(Self.mail, minuteOfDay: 9 * 60 + 29) == .notify(Self.mail))
        #expect(rule.decide(Self.mail, minuteOfDay: 9 * 60 + 30) == .suppress(reason: "quiet hours"))
    }

    @Test(arguments: ["22-07", "25:00-07:00", "22:00", "22:0-07:00", "aa:bb-cc:dd", ""])
    func malformedQuietHoursAreRefused(_ text: String) {
        #expect(NotificationRule.parseQuietHours(text) == nil)
    }

    @Test func denyPatternsWinOverAllowPatterns() {
        var rule = NotificationRule()
        rule.allowSenders = ["*@bank.example"]
        rule.denySenders = ["alerts@*"]
        #expect(rule.decide(Self.mail, minuteOfDay: 600) == .suppress(reason: "the sender matches a deny pattern"))
    }

    @Test func allowPatternsLetOnlyMatchingSendersThrough() {
        var rule = NotificationRule()
        rule.allowSenders = ["*@bank.example", "boss@work.example"]
        #expect(rule.decide(Self.mail, minuteOfDay: 600) == .notify(Self.mail))
        var other = Self.mail
        other.from = .init(name: "", address: "news@shop.example")
        #expect(rule.decide(other, minuteOfDay: 600) == .suppress(reason: "the sender matches no allow pattern"))
    }

    @Test(arguments: [("a@b.c", "*", true), ("a@b.c", "a@b.?", true), ("a@b.c", "*@b.c", true), ("a@b.cd", "*@b.c", false),
                      ("A@B.C", "a@b.c", true), ("ab", "a*b*", true), ("x", "", false), ("", "*", true)])
    func globPatternsMatchWholeAddresses(_ text: String, _ pattern: String, _ expected: Bool) {
        #expect(NotificationRule.matches(text, pattern: pattern) == expected)
    }

    @Test func showLimitsTheFieldsAndNothingSaysNewMail() {
        var rule = NotificationRule()
        rule.show = [.sender]
        guard case .notify(let senderOnly) = rule.decide(Self.mail, minuteOfDay: 0) else { Issue.record("suppressed"); return }
        #expect(senderOnly.from == Self.mail.from && senderOnly.subject.isEmpty && senderOnly.code == nil)
        rule.show = []
        guard case .notify(let nothing) = rule.decide(Self.mail, minuteOfDay: 0) else { Issue.record("suppressed"); return }
        #expect(nothing.subject == "New mail" && nothing.from.address.isEmpty && nothing.code == nil)
        #expect(nothing.mailbox == "personal" && nothing.receivedAt == Self.mail.receivedAt)
    }

    @Test func theMostSpecificStoredRuleApplies() async throws {
        let dir = DataDirectory(path: FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-rules" +
            "-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let (store, _) = try await OutpostStore.initialize(dir)
        defer { Task { await store.close() } }
        let mailbox = try await store.addMailbox(MailboxRecord(label: "m", endpoint: IMAPEndpoint(host: "localhost"), username: "u",
                                                               authentication: .password, folders: ["INBOX", "Spam"]), secret: "pw")
        #expect(try await store.rule(mailboxID: mailbox.id, folder: "INBOX") == NotificationRule())
        var global = NotificationRule()
        global.quietHours = (60, 120)
        try await store.setRule(global)
        var mailboxRule = NotificationRule(mailboxID: mailbox.id)
        mailboxRule.show = [.sender, .subject]
        try await store.setRule(mailboxRule)
        var spam = NotificationRule(mailboxID: mailbox.id, folder: "Spam")
        spam.enabled = false
        spam.denySenders = ["*@spam.example"]
        try await store.setRule(spam)
        #expect(try await store.rule(mailboxID: mailbox.id, folder: "Spam") == spam)
        #expect(try await store.rule(mailboxID: mailbox.id, folder: "INBOX") == mailboxRule)
        #expect(try await store.rule(mailboxID: 999, folder: "INBOX") == global)
        spam.enabled = true
        try await store.setRule(spam)   // replaces, never duplicates
        #expect(try await store.rules().count == 3)
        #expect(try await store.removeRule(mailboxID: mailbox.id, folder: nil))
        #expect(try await store.rule(mailboxID: mailbox.id, folder: "INBOX") == global)
    }
}
