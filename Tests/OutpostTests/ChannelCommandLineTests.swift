import Foundation
import TestSupport
import Testing

/// `mailwake-outpost channel add|list|test|remove`.
@Suite("Outpost: channel commands", .serialized, .awaitedCleanup)
struct ChannelCommandLineTests {
    private func outpost() async throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-outpost-ch-\(UUID().uuidString)").path
        _ = try await OutpostCommandLineTests.run(["init", "--data-dir", dir])
        return dir
    }

    @Test func channelsAreAddedListedTestedAndRemoved() async throws {
        let receiver = try RecordingReceiver.start()
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func run(_ a: [String], _ input: String) async throws -> (Int32, String) { try await MailboxCommandLineTests.run(a, stdin: input) }
        let (hook,
             hookOut) = try await run(["channel", "add", "webhook", "--data-dir", dir, "--name", "hook", "--url", receiver.url + "/hook",
                                             "--allow-private"], "")
        #expect(hook == 0 && hookOut.contains("Signing secret (shown once"), "\(hookOut)")
        let key = "0123456789abcdef0123456789abcdef"
        let (bark, barkOut) = try await run(["channel", "add", "bark", "--data-dir", dir, "--name", "phone", "--server", receiver.url,
                                             "--device-key", "DK1", "--encryption", "gcm", "--allow-private"], key + "\n")
        #expect(bark == 0, "\(barkOut)")
        let (po, poOut) = try await run(["channel", "add", "pushover", "--data-dir", dir, "--name", "po", "--user", "ukey", "--api",
                                         receiver.url,
                                         "--allow-private", "--priority", "1"], "atoken\n")
        #expect(po == 0, "\(poOut)")

        let (_, listed) = try await run(["channel", "list", "--data-dir", dir], "")
        #expect(listed.contains("hook  webhook  \(receiver.url)/hook  (private addresses allowed)"))
        #expect(listed.contains("phone  bark") && listed.contains("(encrypted: AES-256-GCM)") && listed.contains("po  pushover"))

        let database = try Data(contentsOf: URL(fileURLWithPath: dir + "/outpost.db"))
            + ((try? Data(contentsOf: URL(fileURLWithPath: dir + "/outpost.db-wal"))) ?? Data())
        for secret in [key, "atoken", "whsec_"] { #expect(database.range(of: Data(secret.utf8)) == nil, "\(secret) is sealed") }

        for name in ["hook", "phone", "po"] {
            let (status, out) = try await run(["channel", "test", "--data-dir", dir, name], "")
            #expect(status == 0 && out.contains("sent"), "\(name): \(out)")
        }
        #expect(Set(receiver.received.map(\.path)) == ["/hook", "/push", "/1/messages.json"])

        let (removed, _) = try await run(["channel", "remove", "--data-dir", dir, "hook"], "")
        #expect(removed == 0)
        let (again, missing) = try await run(["channel", "remove", "--data-dir", dir, "hook"], "")
        #expect(again != 0 && missing.contains("no channel named 'hook'"))
    }

    @Test func aReceiverThatRefusesIsReportedByTest() async throws {
        let receiver = try RecordingReceiver.start()
        receiver.answer([400])
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await MailboxCommandLineTests.run(["channel", "add", "pushover", "--data-dir", dir, "--name", "po", "--user", "u", "--api",
                                                   receiver.url,
                                                   "--allow-private"], stdin: "t\n")
        let (status, out) = try await MailboxCommandLineTests.run(["channel", "test", "--data-dir", dir, "po"])
        #expect(status != 0 && out.contains("not sent: Pushover refused the message (400)"), "\(out)")
    }

    @Test(arguments: [
        (["webhook", "--name", "w", "--url", "http://hooks.example/x"], "", "plain http only together with --allow-private"),
        (["webhook", "--name", "w", "--url", "ftp://hooks.example/x"], "", "is not an http(s) URL"),
        (["webhook", "--name", "w", "--url", "https://hooks.example/x", "--secret-stdin"], "sk_live_123\n", "must be whsec_"),
        (["bark", "--name", "b", "--device-key", "k", "--encryption", "gcm"], "tooshort\n", "must be 32 characters"),
        (["bark", "--name", "b", "--device-key", "k", "--encryption", "ecb"], "", "--encryption must be gcm or cbc"),
        (["pushover", "--name", "p", "--user", "u"], "", "expected the Pushover application token"),
        (["pushover", "--name", "p", "--user", "u", "--priority", "5"], "t\n", "--priority must be -2 to 2"),
    ])
    func badChannelsAreRefusedWithAReason(_ extra: [String], _ stdin: String, _ message: String) async throws {
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status,
             out) = try await MailboxCommandLineTests.run(["channel", "add"] + [extra[0], "--data-dir", dir] + Array(extra.dropFirst()),
                                                          stdin: stdin)
        #expect(status != 0 && out.contains(message), "\(out)")
    }
}
