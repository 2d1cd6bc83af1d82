import Foundation
@testable import OutpostService
import TestSupport
import Testing

/// `backup --encrypt`: the archive sealed under a passphrase (scrypt and
/// AES-256-GCM, parameters in an authenticated header); `restore` sees it is
/// encrypted and reads the passphrase; a wrong passphrase or a flipped bit
/// is a clear error and nothing is written.
@Suite("Outpost: encrypted backups", .serialized, .awaitedCleanup)
struct EncryptedBackupTests {
    static let passphrase = "correct horse battery staple"

    static func run(_ arguments: [String], stdin: String = "") async throws -> (Int32, String) {
        try await MailboxCommandLineTests.run(arguments, stdin: stdin)
    }

    /// An initialized outpost and its encrypted backup.
    static func backedUp(_ scratch: ScratchDirectory) async throws -> (dir: String, archive: String, outpostID: String) {
        let dir = scratch.file("outpost"), archive = scratch.file("backup.enc")
        let (status, out) = try await run(["init", "--data-dir", dir])
        #expect(status == 0, "\(out)")
        let id = try #require(out.split(separator: "\n").first { $0.contains("outpost id:") }?.split(separator: " ").last.map(String.init))
        let (backup, backupOut) = try await run(["backup", "--encrypt", "--data-dir", dir, "--out", archive], stdin: passphrase + "\n")
        #expect(backup == 0 && backupOut.contains("encrypted"), "\(backupOut)")
        return (dir, archive, id)
    }

    @Test func anEncryptedBackupHidesEverythingAndRestoresWithItsPassphrase() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (dir, archive, id) = try await Self.backedUp(scratch)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        #expect(bytes.starts(with: Data("MAILWAKE-OUTPOST-BACKUP-ENCRYPTED\n".utf8)))
        let key = try Data(contentsOf: URL(fileURLWithPath: dir + "/secret.key"))
        #expect(bytes.range(of: key) == nil, "secret.key is not in the file in clear")
        for clear in ["MAILWAKE-OUTPOST-BACKUP\0", "SQLite format 3",
                      "outpost.db"] { #expect(bytes.range(of: Data(clear.utf8)) == nil, "\(clear)") }

        let restored = scratch.file("restored")
        let (status, out) = try await Self.run(["restore", "--data-dir", restored, "--from", archive], stdin: Self.passphrase + "\n")
        #expect(status == 0 && out.contains("Restored outpost \(id)"), "\(out)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: restored + "/secret.key")) == key)
    }

    @Test func aWrongPassphraseIsAClearErrorAndWritesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (_, archive, _) = try await Self.backedUp(scratch)
        let restored = scratch.file("restored")
        let (status, out) = try await Self.run(["restore", "--data-dir", restored, "--from", archive], stdin: "not the passphrase\n")
        #expect(status != 0)
        #expect(out.contains("the passphrase is wrong, or the backup was altered or damaged"), "\(out)")
        #expect(!FileManager.default.fileExists(atPath: restored), "nothing was written")
        let (missing, missingOut) = try await Self.run(["restore", "--data-dir", restored, "--from", archive], stdin: "")
        #expect(missing != 0 && missingOut.contains("passphrase on standard input"), "\(missingOut)")
        #expect(!FileManager.default.fileExists(atPath: restored))
    }

    @Test(arguments: ["ciphertext", "tag", "salt", "cost"])
    func aFlippedBitIsRefusedAndWritesNothing(_ place: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (_, archive, _) = try await Self.backedUp(scratch)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
        let header = BackupEncryption.magic.count
        switch place {
        case "ciphertext": bytes[header + 6 + 16 + 12 + 100] ^= 0x01
        case "tag": bytes[bytes.count - 1] ^= 0x80
        case "salt": bytes[header + 6] ^= 0x01
        default: bytes[header + 2] ^= 0x01   // log2 N 17 → 16: authenticated too
        }
        let tampered = scratch.file("tampered.enc")
        try Data(bytes).write(to: URL(fileURLWithPath: tampered))
        let restored = scratch.file("restored")
        let (status, out) = try await Self.run(["restore", "--data-dir", restored, "--from", tampered], stdin: Self.passphrase + "\n")
        #expect(status != 0)
        #expect(out.contains("the passphrase is wrong, or the backup was altered or damaged"), "\(place): \(out)")
        #expect(!FileManager.default.fileExists(atPath: restored))
    }

    @Test func aShortPassphraseIsRefusedBeforeAnythingIsWritten() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dir = scratch.file("outpost"), archive = scratch.file("backup.enc")
        _ = try await Self.run(["init", "--data-dir", dir])
        let (status, out) = try await Self.run(["backup", "--encrypt", "--data-dir", dir, "--out", archive], stdin: "short\n")
        #expect(status != 0 && out.contains("at least 10 characters"), "\(out)")
        #expect(!FileManager.default.fileExists(atPath: archive))
    }

    @Test func aHeaderAskingForTooMuchMemoryIsRefusedWithoutDeriving() throws {
        var data = BackupEncryption.magic + [1, 1, 30, 8, 1, 16] + [UInt8](repeating: 0, count: 16 + 12 + 64)
        do {
            _ = try BackupEncryption.open(data, passphrase: Array("x".utf8))
            Issue.record("a header asking for 2^30 · 1 KiB of memory opened")
        } catch {
            #expect(error.message.contains("scrypt parameters out of range"), "\(error.message)")
        }
        data[BackupEncryption.magic.count] = 2
        do {
            _ = try BackupEncryption.open(data, passphrase: [1])
            Issue.record("a newer format opened")
        } catch {
            #expect(error.message.contains("newer than this mailwake-outpost understands"))
        }
    }
}
