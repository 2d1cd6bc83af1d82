/// Applies `SQLiteMigration`s once each and refuses a database whose
/// applied migrations do not match this program's.
///
/// Applied migrations are recorded in `schema_migrations` (version, name,
/// checksum, applied_at). On every run the migrator checks, under the write
/// lock, that each recorded migration is known to this program with the same
/// checksum, and that no unapplied migration is older than the newest applied
/// one; then it applies each pending migration in its own IMMEDIATE
/// transaction together with its record, after checking that it left no
/// foreign key violation. Two processes migrating at once are safe: the
/// second waits for the lock and skips what the first applied.
public struct SQLiteMigrator: Sendable {
    public let migrations: [SQLiteMigration]

    static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            checksum TEXT NOT NULL,
            applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        )
        """

    public init(_ migrations: [SQLiteMigration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Applies pending migrations; returns the versions applied now (empty when up to date).
    @discardableResult
    public func migrate(_ database: SQLiteDatabase) async throws -> [Int64] {
        try await database.withConnection { connection in try self.migrate(connection) }
    }

    /// Applies pending migrations on `connection` (outside any transaction).
    @discardableResult
    public func migrate(_ connection: SQLiteConnection) throws -> [Int64] {
        try validateList()
        guard !connection.isInTransaction else {
            throw SQLiteError(.misuse, "migrations run in their own transactions; call migrate outside a transaction")
        }
        let pending = try connection.transaction(.immediate) { c in
            try c.executeScript(Self.createTable)
            return try self.pending(given: Self.applied(c))
        }
        var appliedNow: [Int64] = []
        for migration in pending {
            let applied = try connection.transaction(.immediate) { c -> Bool in
                // Another process may have applied it since the check.
                guard try c.queryValue("SELECT 1 FROM schema_migrations WHERE version = ?", migration.version,
                                       as: Int64.self) == nil else {
                    return false
                }
                do {
                    try c.executeScript(migration.sql)
                } catch let error as SQLiteError {
                    throw SQLiteError(error.code, "migration \(migration.version) (\(migration.name)) failed: \(error.message)",
                                      resultCode: error.resultCode)
                }
                if try !c.query("PRAGMA foreign_key_check").isEmpty {
                    throw SQLiteError(.migration,
                                      "migration \(migration.version) (\(migration.name)) leaves rows that violate foreign keys")
                }
                try c.execute(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES (?, ?, ?)",
                    migration.version, migration.name, migration.checksum)
                return true
            }
            if applied { appliedNow.append(migration.version) }
        }
        return appliedNow
    }

    /// The recorded migrations, ascending.
    public static func appliedMigrations(_ connection: SQLiteConnection) throws -> [(version: Int64, name: String, checksum: String)] {
        let exists: Int64? = try connection.queryValue("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'")
        guard exists != nil else { return [] }
        return try applied(connection)
    }

    private static func applied(_ c: SQLiteConnection) throws -> [(version: Int64, name: String, checksum: String)] {
        try c.query("SELECT version, name, checksum FROM schema_migrations ORDER BY version").map { row in
            (try row.get("version"), try row.get("name"), try row.get("checksum"))
        }
    }

    private func validateList() throws(SQLiteError) {
        var seen = Set<Int64>()
        for m in migrations {
            guard m.version > 0 else { throw SQLiteError(.migration, "migration versions must be positive, got \(m.version)") }
            guard seen.insert(m.version).inserted else { throw SQLiteError(.migration, "migration version \(m.version) is listed twice") }
        }
    }

    private func pending(given applied: [(version: Int64, name: String, checksum: String)]) throws(SQLiteError) -> [SQLiteMigration] {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for record in applied {
            guard let migration = known[record.version] else {
                throw SQLiteError(.migration,
                                  "the database has migration \(record.version) (\(record.name)) that this program does not know: it " +
                                  "was written by a newer version")
            }
            guard migration.checksum == record.checksum else {
                throw SQLiteError(.migrationChecksumMismatch,
                                  "migration \(record.version) (\(record.name)) was changed after it was applied (recorded " +
                                  "\(record.checksum), now \(migration.checksum)); add a new migration instead")
            }
        }
        let appliedVersions = Set(applied.map(\.version))
        let newest = applied.map(\.version).max() ?? 0
        let pending = migrations.filter { !appliedVersions.contains($0.version) }
        if let stray = pending.first(where: { $0.version < newest }) {
            throw SQLiteError(.migration,
                              "migration \(stray.version) (\(stray.name)) is older than the newest applied migration \(newest) and was " +
                              "never applied")
        }
        return pending
    }
}
