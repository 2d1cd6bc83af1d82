import Foundation
import MailwakeSQLite

/// `backup` and `restore`: one archive with a consistent snapshot of the
/// database (SQLite online backup, safe while the outpost runs) and
/// `secret.key`. Whoever holds the archive holds the outpost's keys: it is
/// written with mode 0600.
public enum OutpostBackup {
    static let marker = "MAILWAKE-OUTPOST-BACKUP"

    /// Writes the archive to `path` (refusing to replace a file); returns its size.
    @discardableResult
    public static func write(_ store: OutpostStore, to path: String) async throws -> Int {
        guard !FileManager.default.fileExists(atPath: path) else { throw OutpostError(.storage, "\(path) exists: refusing to replace it") }
        let snapshot = store.directory.path + "/.backup-\(UUID().uuidString).db"
        defer { try? FileManager.default.removeItem(atPath: snapshot) }
        _ = try await store.database.backup(to: snapshot)
        guard let database = FileManager.default.contents(atPath: snapshot), let secret = FileManager.default.contents(atPath: store.directory.secretKeyPath) else {
            throw OutpostError(.storage, "cannot read the snapshot or secret.key")
        }
        let archive = TarArchive.write([
            .init(name: marker, mode: 0o600, bytes: Array("version 1\n".utf8)),
            .init(name: "outpost.db", mode: 0o600, bytes: Array(database)),
            .init(name: "secret.key", mode: 0o600, bytes: Array(secret)),
        ], mtime: Int64(Date().timeIntervalSince1970))
        guard FileManager.default.createFile(atPath: path, contents: Data(archive), attributes: [.posixPermissions: 0o600]) else {
            throw OutpostError(.storage, "cannot write \(path)")
        }
        return archive.count
    }

    /// Restores an archive into `directory`, which must be empty or absent,
    /// and checks that the identity opens.
    public static func restore(from path: String, into directory: DataDirectory) async throws -> OutpostIdentity {
        guard let data = FileManager.default.contents(atPath: path) else { throw OutpostError(.storage, "cannot read \(path)") }
        guard let entries = TarArchive.read(Array(data)), entries.contains(where: { $0.name == marker }),
              let database = entries.first(where: { $0.name == "outpost.db" }), let secret = entries.first(where: { $0.name == "secret.key" })
        else { throw OutpostError(.storage, "\(path) is not an outpost backup") }
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: directory.path), !existing.isEmpty {
            throw OutpostError(.alreadyInitialized, "\(directory.path) is not empty: restore into an empty data directory")
        }
        try directory.create()
        guard FileManager.default.createFile(atPath: directory.secretKeyPath, contents: Data(secret.bytes), attributes: [.posixPermissions: 0o600]),
              FileManager.default.createFile(atPath: directory.databasePath, contents: Data(database.bytes), attributes: [.posixPermissions: 0o600])
        else { throw OutpostError(.storage, "cannot write into \(directory.path)") }
        let store = try await OutpostStore.open(directory)
        let identity = try await store.identity()
        await store.close()
        return identity
    }
}
