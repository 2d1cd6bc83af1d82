import Foundation
import TestSupport
import Testing

/// `mailwake-outpost mailbox add|list|test|remove` against a real Dovecot.
@Suite("Outpost: mailbox commands", .serialized, .awaitedCleanup)
struct MailboxCommandLineTests {
    static let password = "s3cret pässword with spaces"

    /// Runs the outpost with `password` on standard input; returns (exit status, output).
    static func run(_ arguments: [String], stdin: String = "",
                    executable: String = OutpostCommandLineTests.executable) async throws -> (Int32, String) {
        return try await runOffPool {
            let output = NSTemporaryDirectory() + "/mailwake-cli-\(UUID().uuidString).log"
            defer { unlink(output) }
            let input = NSTemporaryDirectory() + "/mailwake-cli-\(UUID().uuidString).in"
            defer { unlink(input) }
            try stdin.write(toFile: input, atomically: true, encoding: .utf8)
            let child = try ChildProcess.spawn("/bin/sh", ["-c", "exec \"$0\" \"$@\" < \"\(input)\"", executable] + arguments,
                                               directory: nil,
                                               outputPath: output)
            let status = child.waitForExit()
            return (status, ChildProcess.readTextFile(output) ?? "")
        }
    }

    private func outpost() async throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-outpost-mbx-\(UUID().uuidString)").path
        _ = try await OutpostCommandLineTests.run(["init", "--data-dir", dir])
        return dir
    }

    @Test func aProviderPresetFillsInTheServerAndTrustAndMailboxTrustChangesIt() async throws {
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status,
             added) = try await Self.run(["mailbox", "add", "--data-dir", dir, "--label", "Fast", "--provider", "fastmail", "--user",
                                          "alice@example.com",
                                                  "--password-stdin", "--no-test"], stdin: Self.password + "\n")
        #expect(status == 0, "\(added)")
        let (_, listed) = try await Self.run(["mailbox", "list", "--data-dir", dir])
        #expect(listed.contains("Fast  alice@example.com @ imap.fastmail.com:993 (implicit TLS), password"), "\(listed)")
        #expect(listed.contains("Fastmail, trusting *.messagingengine.com"), "\(listed)")

        let (trustStatus, trusted) = try await Self.run(["mailbox", "trust", "--data-dir", dir, "Fast", "mx.example.net, -"])
        #expect(trustStatus == 0, "\(trusted)")
        #expect(try await Self.run(["mailbox", "list", "--data-dir", dir]).1.contains("trusting mx.example.net, -"))

        let (badStatus, bad) = try await Self.run(["mailbox", "trust", "--data-dir", dir, "Fast", "mx example; dmarc=pass"])
        #expect(badStatus != 0 && bad.contains("is not a host name"), "\(bad)")
        let (unknownStatus,
             unknown) = try await Self.run(["mailbox", "add", "--data-dir", dir, "--label", "X", "--provider", "hotmail.example",
                                                          "--user", "a", "--password-stdin", "--no-test"], stdin: "pw\n")
        #expect(unknownStatus != 0 && unknown.contains("--provider must be one of"), "\(unknown)")
        let (_, providers) = try await Self.run(["mailbox", "providers"])
        #expect(providers.contains("gmail: Gmail, imap.gmail.com:993 implicit, OAuth 2") && providers.contains("trusts mx.google.com"),
                "\(providers)")
    }

    @Test func addTestsTheMailboxStoresItSealedAndListTestAndRemoveWork() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", Self.password)])
        try await dovecot.createFolder("alice", "Work")
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, added) = try await Self.run(["mailbox", "add", "--data-dir", dir, "--label", "Personal", "--host", "localhost",
                                                  "--port", String(dovecot.imapsPort), "--ca-file", dovecot.caFile, "--user", "alice",
                                                  "--password-stdin", "--folders", "INBOX,Work"], stdin: Self.password + "\n")
        #expect(status == 0, "\(added)")
        #expect(added.contains("IDLE:          yes") && added.contains("CONDSTORE:     yes") && added.contains("Mailbox 'Personal' added"))

        let (_, listed) = try await Self.run(["mailbox", "list", "--data-dir", dir])
        #expect(listed.contains("Personal  alice @ localhost:\(dovecot.imapsPort) (implicit TLS), password"))
        #expect(listed.contains("    INBOX: not watched yet") && listed.contains("    Work: not watched yet"))

        let (testStatus, tested) = try await Self.run(["mailbox", "test", "--data-dir", dir, "Personal"])
        #expect(testStatus == 0 && tested.contains("logged in:     yes") && tested.contains("    Work"))

        let database = try Data(contentsOf: URL(fileURLWithPath: dir + "/outpost.db"))
            + ((try? Data(contentsOf: URL(fileURLWithPath: dir + "/outpost.db-wal"))) ?? Data())
        #expect(database.range(of: Data(Self.password.utf8)) == nil, "the password is stored sealed")
        #expect(database.range(of: Data("pässword".utf8)) == nil)

        let (duplicate, refusal) = try await Self.run(["mailbox", "add", "--data-dir", dir, "--label", "Personal", "--host", "localhost",
                                                       "--port", String(dovecot.imapsPort), "--ca-file", dovecot.caFile, "--user", "alice",
                                                       "--password-stdin"], stdin: Self.password + "\n")
        #expect(duplicate != 0 && refusal.contains("exists already"))

        let (removed, removal) = try await Self.run(["mailbox", "remove", "--data-dir", dir, "Personal"])
        #expect(removed == 0 && removal.contains("removed"))
        let (again, missing) = try await Self.run(["mailbox", "remove", "--data-dir", dir, "Personal"])
        #expect(again != 0 && missing.contains("no mailbox labelled 'Personal'"))
    }

    @Test func aRefusedPasswordIsReportedAndNothingIsStored() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", Self.password)])
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await Self.run(["mailbox", "add", "--data-dir", dir, "--label", "Personal", "--host", "localhost",
                                                   "--port", String(dovecot.imapsPort), "--ca-file", dovecot.caFile, "--user", "alice",
                                                   "--password-stdin"], stdin: "wrong\n")
        #expect(status != 0)
        #expect(output.contains("refused the credentials") && !output.contains("wrong\n"))
        let (_, listed) = try await Self.run(["mailbox", "list", "--data-dir", dir])
        #expect(listed.contains("No mailboxes"))
    }

    @Test func aFolderTheServerDoesNotHaveIsRefused() async throws {
        let dovecot = try await DovecotServer.start(users: [("alice", Self.password)])
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await Self.run(["mailbox", "add", "--data-dir", dir, "--label", "P", "--host", "localhost",
                                                   "--port", String(dovecot.imapsPort), "--ca-file", dovecot.caFile, "--user", "alice",
                                                   "--password-stdin", "--folders", "INBOX,Nope"], stdin: Self.password + "\n")
        #expect(status != 0 && output.contains("no folder Nope"))
    }

    @Test func anOAuthTokenCommandLogsInWithXOAUTH2() async throws {
        let dovecot = try await DovecotServer.start(users: [("bob", "ya29.fresh-token")])
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await Self.run(["mailbox", "add", "--data-dir", dir, "--label", "Gmail", "--host", "localhost",
                                                   "--port", String(dovecot.imapsPort), "--ca-file", dovecot.caFile, "--user", "bob",
                                                   "--oauth2-token-command", "echo ya29.fresh-token"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("XOAUTH2:       yes"))
        let (_, listed) = try await Self.run(["mailbox", "list", "--data-dir", dir])
        #expect(listed.contains("OAuth 2 (token command)"))
    }

    @Test func rulesAreSetListedAndRemovedPerScope() async throws {
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (added, _) = try await Self.run(["mailbox", "add", "--data-dir", dir, "--label", "Work", "--host", "localhost", "--user", "u",
                                             "--password-stdin", "--no-test"], stdin: "pw\n")
        #expect(added == 0)
        let (s1, _) = try await Self.run(["rules", "set", "--data-dir", dir, "--quiet", "22:00-07:00", "--show", "sender,code"])
        let (s2, _) = try await Self.run(["rules", "set", "--data-dir", dir, "--mailbox", "Work", "--folder", "Spam", "--off"])
        let (s3, _) = try await Self.run(["rules", "set", "--data-dir", dir, "--mailbox", "Work", "--deny", "*@ads.example, news@*",
                                          "--show", "nothing"])
        #expect(s1 == 0 && s2 == 0 && s3 == 0)
        let (_, listed) = try await Self.run(["rules", "list", "--data-dir", dir])
        #expect(listed.contains("every mailbox, on, quiet 22:00-07:00, show sender,code"), "\(listed)")
        #expect(listed.contains("Work, on, deny *@ads.example,news@*, show nothing (\"New mail\")"))
        #expect(listed.contains("Work/Spam, off, show sender,subject,code"))
        let (removed, _) = try await Self.run(["rules", "remove", "--data-dir", dir, "--mailbox", "Work", "--folder", "Spam"])
        #expect(removed == 0)
        let (again, output) = try await Self.run(["rules", "remove", "--data-dir", dir, "--mailbox", "Work", "--folder", "Spam"])
        #expect(again != 0 && output.contains("no rule for that scope"))
        let (bad, refusal) = try await Self.run(["rules", "set", "--data-dir", dir, "--quiet", "late"])
        #expect(bad != 0 && refusal.contains("--quiet must look like"))
        let (unknown, missing) = try await Self.run(["rules", "set", "--data-dir", dir, "--mailbox", "Nope", "--off"])
        #expect(unknown != 0 && missing.contains("no mailbox labelled 'Nope'"))
    }

    @Test(arguments: [
        (["--tls", "none", "--host", "imap.example.org"], "only allowed for a server on this machine"),
        (["--tls", "sometimes", "--host", "localhost"], "--tls must be"),
        (["--host", "localhost", "--port", "70000"], "--port must be"),
        (["--host", "localhost", "--oauth2-token-command", "true", "--password-stdin"], "exactly one of"),
        (["--host", "localhost"], "exactly one of"),
    ])
    func badOptionsAreRefusedWithAReason(_ extra: [String], _ message: String) async throws {
        let dir = try await outpost()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await Self.run(["mailbox", "add", "--data-dir", dir, "--label", "X", "--user", "u"] + extra,
                                                  stdin: "pw\n")
        #expect(status != 0 && output.contains(message), "\(output)")
    }
}
