import Foundation
import MailwakeCrypto
import MailwakeSQLite
@testable import OutpostService
import TestSupport
import Testing

@Suite("Outpost: data directory, secret.key and sealed secrets")
struct StoreTests {
    static func scratch() -> DataDirectory {
        DataDirectory(path: FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-outpost-\(UUID().uuidString)").path)
    }

    static func mode(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func aDatabaseThatCannotBeOpenedOnAFullFileSystemSaysTheDiskIsFull() {
        struct DiskIOError: Error, CustomStringConvertible { var description: String { "SQLite io (4874 disk I/O error)" } }
        let dir = DataDirectory(path: "/var/lib/mailwake-outpost")
        let full = dir.openFailure(DiskIOError(), freeBytes: 4096).message
        #expect(full.contains("the file system holding /var/lib/mailwake-outpost is full (4096 bytes free)"))
        #expect(full.contains("SQLite io"))
        let roomy = dir.openFailure(DiskIOError(), freeBytes: 10 << 30).message
        #expect(!roomy.contains("full") && roomy.contains("SQLite io"))
        #expect(!dir.openFailure(DiskIOError(), freeBytes: nil).message.contains("full"))
    }

    @Test func theFreeSpaceOfADirectoryIsReadFromItsFileSystem() throws {
        let free = try #require(DataDirectory(path: FileManager.default.temporaryDirectory.path).freeBytes())
        #expect(free > 0)
        #expect(DataDirectory(path: "/nonexistent-\(UUID().uuidString)").freeBytes() == nil)
    }

    @Test func initCreatesAnOwnerOnlyKeyADatabaseAndAnIdentity() async throws {
        let dir = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let (store, identity) = try await OutpostStore.initialize(dir)
        #expect(Self.mode(dir.path) == 0o700)
        #expect(Self.mode(dir.secretKeyPath) == 0o600)
        #expect(Self.mode(dir.databasePath) == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.secretKeyPath)).count == 32)
        #expect(identity.fingerprint.count > 10)
        await store.close()
        let reopened = try await OutpostStore.open(dir)
        #expect(try await reopened.identity().id == identity.id)
        await reopened.close()
    }

    @Test func initRefusesToReplaceAnOutpost() async throws {
        let dir = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let (store, _) = try await OutpostStore.initialize(dir)
        await store.close()
        let key = try Data(contentsOf: URL(fileURLWithPath: dir.secretKeyPath))
        await #expect(throws: OutpostError.self) { _ = try await OutpostStore.initialize(dir) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.secretKeyPath)) == key)
    }

    @Test func aWrongSecretKeyGivesOneClearError() async throws {
        let dir = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let (store, _) = try await OutpostStore.initialize(dir)
        await store.close()
        try FileManager.default.removeItem(atPath: dir.secretKeyPath)
        _ = try SecretKey.create(at: dir.secretKeyPath)
        do {
            _ = try await OutpostStore.open(dir)
            Issue.record("a foreign secret.key opened the database")
        } catch let error as OutpostError {
            #expect(error.code == .sealedData)
            #expect(error.message.contains("secret.key"))
        }
    }

    @Test func aMissingShortOrOpenSecretKeyIsRefusedWithItsReason() async throws {
        let dir = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let (store, _) = try await OutpostStore.initialize(dir)
        await store.close()
        let original = try Data(contentsOf: URL(fileURLWithPath: dir.secretKeyPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir.secretKeyPath)
        await #expect { _ = try await OutpostStore.open(dir) } throws: { ($0 as? OutpostError)?.message.contains("chmod 600") == true }
        try FileManager.default.removeItem(atPath: dir.secretKeyPath)
        await #expect { _ = try await OutpostStore.open(dir) } throws: { ($0 as? OutpostError)?.message.contains("is missing") == true }
        #expect(FileManager.default.createFile(atPath: dir.secretKeyPath, contents: original.prefix(16),
                                               attributes: [.posixPermissions: 0o600]))
        await #expect { _ = try await OutpostStore.open(dir) } throws: { ($0 as? OutpostError)?.message.contains("16 bytes") == true }
    }

    @Test func noSecretAppearsInTheDatabaseFilesBytes() async throws {
        let dir = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let (store, identity) = try await OutpostStore.initialize(dir)
        let password = "correct horse battery staple 7f3a"
        try await store.setSecret("mailbox:personal:password", password)
        try await store.set("relay_url", "https://push.example.net")
        #expect(try await store.setting("mailbox:personal:password") == password)
        #expect(try await store.setting("relay_url") == "https://push.example.net")
        _ = try await store.database.executeScript("PRAGMA wal_checkpoint(TRUNCATE);")
        await store.close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: dir.databasePath))
        if let wal = try? Data(contentsOf: URL(fileURLWithPath: dir.databasePath + "-wal")) { bytes += wal }
        let haystack = Array(bytes)
        for secret in [Array(password.utf8), identity.signingKey.rawRepresentation, identity.signingKey.pkcs8DERRepresentation] {
            #expect(Self.contains(haystack, secret) == false)
        }
        #expect(Self.contains(haystack, Array("https://push.example.net".utf8)), "the search itself finds what is stored in clear")
    }

    @Test func aSealedValueMovedToAnotherRowOrTamperedWithDoesNotOpen() async throws {
        let dir = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let (store, _) = try await OutpostStore.initialize(dir)
        try await store.setSecret("a", "secret-a")
        _ = try await store.database.execute("""
                                             INSERT INTO settings (name, value_sealed, updated_at) SELECT 'b', value_sealed, \
                                             updated_at FROM settings WHERE name = 'a'
                                             """)
        await #expect(throws: OutpostError.self) { _ = try await store.setting("b") }
        var sealed: [UInt8] = try #require(try await store.database.queryRow("""
                                                                             SELECT value_sealed FROM settings WHERE \
                                                                             name = 'a'
                                                                             """)).get("value_sealed")
        sealed[20] ^= 0x01
        _ = try await store.database.execute("UPDATE settings SET value_sealed = ? WHERE name = 'a'", sealed)
        await #expect(throws: OutpostError.self) { _ = try await store.setting("a") }
        await store.close()
    }

    @Test func theDefaultDataDirectoryFollowsRootAndXDG() {
        #expect(DataDirectory.defaultPath(environment: [:], isRoot: true) == "/var/lib/mailwake-outpost")
        #expect(DataDirectory.defaultPath(environment: ["XDG_DATA_HOME": "/home/a/.data", "HOME": "/home/a"],
                                          isRoot: false) == "/home/a/.data/mailwake-outpost")
        #expect(DataDirectory.defaultPath(environment: ["HOME": "/home/a"], isRoot: false) == "/home/a/.local/share/mailwake-outpost")
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return true }
        }
        return false
    }
}
