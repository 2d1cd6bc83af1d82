import Foundation
public import MailwakeCore
import MailwakeCrypto
import MailwakeProtocol
public import MailwakeSQLite

/// The outpost's database (`outpost.db`, SQLite, mode 0600) and the secrets
/// sealed in it.
public final class OutpostStore: Sendable {
    public let database: SQLiteDatabase
    public let box: SecretBox
    public let directory: DataDirectory
    let clock: @Sendable () -> Int64

    init(database: SQLiteDatabase, box: SecretBox, directory: DataDirectory, clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.box = box
        self.directory = directory
        self.clock = clock
    }

    /// Opens an initialized data directory: `secret.key`, then the database
    /// (migrated), then checks that the identity opens under the key.
    public static func open(_ directory: DataDirectory,
                            clock: @escaping @Sendable () -> Int64 = WallClock.seconds) async throws -> OutpostStore {
        guard FileManager.default.fileExists(atPath: directory.databasePath) else {
            throw OutpostError(.dataDirectory, "\(directory.path) holds no outpost: run `mailwake-outpost init` (or pass --data-dir)")
        }
        let secret = try SecretKey.load(from: directory.secretKeyPath)
        let store = try await openDatabase(directory, secret: secret, clock: clock)
        _ = try await store.identity()
        return store
    }

    /// `mailwake-outpost init`: a new secret key, database and identity.
    public static func initialize(_ directory: DataDirectory,
                                  clock: @escaping @Sendable () -> Int64 = WallClock.seconds) async throws -> (OutpostStore,
                                      OutpostIdentity) {
        try directory.create()
        guard !FileManager.default.fileExists(atPath: directory.databasePath) else {
            throw OutpostError(.alreadyInitialized, "\(directory.path) already holds an outpost (outpost.db): refusing to replace it")
        }
        let secret = try SecretKey.create(at: directory.secretKeyPath)
        let store = try await openDatabase(directory, secret: secret, clock: clock)
        let identity = OutpostIdentity(signingKey: try P256.Signing.PrivateKey())
        let sealed = try store.box.seal(identity.signingKey.pkcs8DERRepresentation, purpose: "identity",
                                        context: "identity:\(identity.id)")
        let (id, publicKey, now) = (identity.id, identity.publicKey, clock())
        try await store.database.transaction { c in
            _ = try c.execute("INSERT INTO identity (id, outpost_id, public_key, private_key_sealed, created_at) VALUES (1, ?, ?, ?, ?)",
                              id, publicKey, sealed, now)
        }
        return (store, identity)
    }

    private static func openDatabase(_ directory: DataDirectory, secret: SecretKey,
                                     clock: @escaping @Sendable () -> Int64) async throws -> OutpostStore {
        let database: SQLiteDatabase
        do {
            database = try await SQLiteDatabase.open(.init(path: directory.databasePath))
            _ = try await SQLiteMigrator(OutpostMigrations.all).migrate(database)
        } catch {
            throw directory.openFailure(error, freeBytes: directory.freeBytes())
        }
        return OutpostStore(database: database, box: SecretBox(secret: secret), directory: directory, clock: clock)
    }

    public func close() async {
        try? await database.close()
    }

    /// The identity, opened with `secret.key`.
    public func identity() async throws -> OutpostIdentity {
        guard let row = try await database.queryRow("SELECT outpost_id, public_key, private_key_sealed FROM identity WHERE id = 1") else {
            throw OutpostError(.dataDirectory, "the database has no identity: the data directory is incomplete")
        }
        let id: String = try row.get("outpost_id")
        let der = try box.open(try row.get("private_key_sealed"), purpose: "identity", context: "identity:\(id)")
        let key: P256.Signing.PrivateKey
        do { key = try P256.Signing.PrivateKey(pkcs8DERRepresentation: der) } catch {
            throw OutpostError(.sealedData, "the identity key is damaged")
        }
        let identity = OutpostIdentity(signingKey: key)
        guard identity.id == id, identity.publicKey == (try row.get("public_key") as [UInt8]) else {
            throw OutpostError(.sealedData, "the identity row does not match its key: the database was altered")
        }
        return identity
    }
}
