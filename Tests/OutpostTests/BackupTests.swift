import Foundation
@testable import OutpostService
import StackSupport
import TestSupport
import Testing

@Suite("Outpost: backup and restore", .serialized, .awaitedCleanup)
struct BackupTests {
    @Test func aBackupRestoresTheIdentityPairingsAndSecretsIntoAnEmptyDirectory() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let paired = try await outpost.pair(device, through: stack)
        try await outpost.store.setSecret("mailbox:personal:password", "hunter2-but-longer")
        let archive = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-backup-\(UUID().uuidString).tar").path
        defer { try? FileManager.default.removeItem(atPath: archive) }
        try await OutpostBackup.write(outpost.store, to: archive)
        #expect((try FileManager.default.attributesOfItem(atPath: archive)[.posixPermissions] as? Int) == 0o600)
        await #expect(throws: OutpostError.self) { try await OutpostBackup.write(outpost.store, to: archive) }
        let listing = try await runOffPool { try ChildProcess.run("/bin/tar", ["-tf", archive], directory: nil) }
        #expect(listing.split(separator: "\n").map(String.init) == ["MAILWAKE-OUTPOST-BACKUP", "outpost.db", "secret.key"])

        let target = DataDirectory(path: FileManager.default.temporaryDirectory.appendingPathComponent("outpost-restored" +
            "-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: target.path) }
        let identity = try await OutpostBackup.restore(from: archive, into: target)
        #expect(identity.id == outpost.identity.id)
        let restored = try await OutpostStore.open(target)
        #expect(try await restored.pairings(activeOnly: true).map(\.pairingID) == [paired.pairingID])
        #expect(try await restored.setting("mailbox:personal:password") == "hunter2-but-longer")
        await restored.close()
        await #expect(throws: OutpostError.self) { _ = try await OutpostBackup.restore(from: archive, into: target) }
    }

    @Test func somethingElseIsNotRestored() async throws {
        let bogus = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-backup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: bogus) }
        #expect(FileManager.default.createFile(atPath: bogus, contents: Data(repeating: 0x41, count: 2000)))
        let target = DataDirectory(path: FileManager.default.temporaryDirectory.appendingPathComponent("outpost-restored" +
            "-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: target.path) }
        await #expect { _ = try await OutpostBackup.restore(from: bogus, into: target) } throws: {
            ($0 as? OutpostError)?.message.contains("not an outpost backup") == true
        }
    }

    @Test func theArchiveFormatRoundTrips() {
        let entries = [TarArchive.Entry(name: "a", mode: 0o600, bytes: []),
                       TarArchive.Entry(name: "b", mode: 0o644, bytes: Array(repeating: 7, count: 1025))]
        #expect(TarArchive.read(TarArchive.write(entries, mtime: 1)) == entries)
        var damaged = TarArchive.write(entries, mtime: 1)
        damaged[10] ^= 1
        #expect(TarArchive.read(damaged) == nil)
    }
}
