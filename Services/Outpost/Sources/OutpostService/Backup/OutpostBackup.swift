import Foundation
import MailwakeCore
import MailwakeSQLite

/// `backup` and `restore`: one archive with a consistent snapshot of the
/// database (SQLite online backup, safe while the outpost runs) and
/// `secret.key`. Whoever holds the archive holds the outpost's keys: it is
/// created with mode 0600 (`SecretFile`), and `--encrypt` seals it under a
/// passphrase (`BackupEncryption`).
public enum OutpostBackup {
    static let marker = "MAILWAKE-OUTPOST-BACKUP"

    /// Writes the archive to `path` (refusing to replace a file, mode 0600
    /// from creation); with `passphrase`, encrypted (`BackupEncryption`). Returns its size.
    @discardableResult
    public static func write(_ store: OutpostStore, to path: String, passphrase: [UInt8]? = nil) async throws -> Int {
        guard !FileManager.default.fileExists(atPath: path) else { throw OutpostError(.storage, "\(path) exists: refusing to replace it") }
        let snapshot = store.directory.path + "/.backup-\(UUID().uuidString).db"
        defer { try? FileManager.default.removeItem(atPath: snapshot) }
        _ = try await store.database.backup(to: snapshot)
        guard let database = FileManager.default.contents(atPath: snapshot),
              let secret = FileManager.default.contents(atPath: store.directory.secretKeyPath) else {
            throw OutpostError(.storage, "cannot read the snapshot or secret.key")
        }
        var archive = TarArchive.write([
            .init(name: marker, mode: 0o600, bytes: Array("version 1\n".utf8)),
            .init(name: "outpost.db", mode: 0o600, bytes: Array(database)),
            .init(name: "secret.key", mode: 0o600, bytes: Array(secret)),
        ], mtime: WallClock.seconds())
        if let passphrase { archive = try BackupEncryption.seal(archive, passphrase: passphrase) }
        try SecretFile.create(at: path, bytes: archive, code: .storage)
        return archive.count
    }

    /// Whether the backup at `path` is encrypted (`restore` then needs its passphrase).
    public static func isEncrypted(at path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw OutpostError(.storage, "cannot read \(path)") }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: BackupEncryption.magic.count)) ?? Data()
        return BackupEncryption.isEncrypted(Array(head))
    }

    /// Restores an archive into `directory`, which must be empty or absent,
    /// and checks that the identity opens. An encrypted archive needs
    /// `passphrase`; it is decrypted before anything is written.
    public static func restore(from path: String, into directory: DataDirectory,
                               passphrase: [UInt8]? = nil) async throws -> OutpostIdentity {
        guard let read = FileManager.default.contents(atPath: path) else { throw OutpostError(.storage, "cannot read \(path)") }
        var data = Array(read)
        if BackupEncryption.isEncrypted(data) {
            guard let passphrase else { throw OutpostError(.storage, "\(path) is encrypted: give its passphrase on standard input") }
            data = try BackupEncryption.open(data, passphrase: passphrase)
        }
        guard let entries = TarArchive.read(data), entries.contains(where: { $0.name == marker }),
              let database = entries.first(where: { $0.name == "outpost.db" }), let secret =
                  entries.first(where: { $0.name == "secret.key" })
        else { throw OutpostError(.storage, "\(path) is not an outpost backup") }
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: directory.path), !existing.isEmpty {
            throw OutpostError(.alreadyInitialized, "\(directory.path) is not empty: restore into an empty data directory")
        }
        try directory.create()
        try SecretFile.create(at: directory.secretKeyPath, bytes: secret.bytes, code: .storage)
        do {
            try SecretFile.create(at: directory.databasePath, bytes: database.bytes, code: .storage)
        } catch {
            unlink(directory.secretKeyPath)
            throw error
        }
        let store = try await OutpostStore.open(directory)
        let identity = try await store.identity()
        await store.close()
        return identity
    }
}
