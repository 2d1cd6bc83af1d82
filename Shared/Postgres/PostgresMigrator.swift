import MailwakeCrypto
public import MailwakeCore

/// One schema change: applied once, in `version` order, never edited after release.
public struct PostgresMigration: Sendable, Hashable {
    public let version: Int64
    public let name: String
    /// SQL text, possibly several statements; runs inside a transaction.
    public let sql: String

    public init(version: Int64, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Lower-case hex SHA-256 of the SQL text (UTF-8).
    public var checksum: String { SHA256.hash(Array(sql.utf8)).hex }
}

/// Applies versioned migrations at start.
///
/// Every step runs in a transaction holding `pg_advisory_xact_lock(lockKey)`,
/// so several instances starting at once apply each migration exactly once;
/// the transaction has no `statement_timeout`.
/// Applied migrations are recorded in `schema_migrations` (version, name,
/// SHA-256 checksum, time); a recorded migration whose SQL changed since is an
/// error (`.migration`), as are duplicate or unordered versions.
public struct PostgresMigrator: Sendable {
    /// Default advisory lock key: "mailwake" in ASCII.
    public static let defaultLockKey: Int64 = 0x6D61_696C_7761_6B65

    public let migrations: [PostgresMigration]
    public let tableName: String
    public let lockKey: Int64
    let logger: Logger

    public init(_ migrations: [PostgresMigration], tableName: String = "schema_migrations", lockKey: Int64 = defaultLockKey,
                logger: Logger) {
        self.migrations = migrations
        self.tableName = tableName
        self.lockKey = lockKey
        self.logger = logger
    }

    /// Applies what is pending; returns the versions this call applied.
    @discardableResult
    public func migrate(_ client: PostgresClient) async throws -> [Int64] {
        for (a, b) in zip(migrations, migrations.dropFirst()) where a.version >= b.version {
            throw PostgresError(.migration, "migration versions must be unique and ascending (\(a.version) then \(b.version))")
        }
        let table = PostgresQuery.quoteIdentifier(tableName)
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })

        // Create the table and check every recorded checksum before changing anything.
        let applied: [Int64: String] = try await client.withTransaction { tx in
            try await lock(tx)
            try await tx.runScript("""
                CREATE TABLE IF NOT EXISTS \(table) (
                    version bigint PRIMARY KEY,
                    name text NOT NULL,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let rows = try await tx.query(PostgresQuery(unsafeSQL: "SELECT version, name, checksum FROM \(table) ORDER BY version"))
            var applied: [Int64: String] = [:]
            for row in rows {
                let (version, name, checksum) = try row.decode((Int64, String, String).self)
                applied[version] = checksum
                if let local = known[version] {
                    guard local.checksum == checksum else {
                        throw PostgresError(.migration,
                                            "applied migration \(version) (\(name)) has changed since it was applied: checksum mismatch")
                    }
                } else {
                    logger.warning("database has a migration this build does not know", ["version": .int(version), "name": .string(name)])
                }
            }
            return applied
        }

        var done: [Int64] = []
        for migration in migrations where applied[migration.version] == nil {
            let appliedNow = try await client.withTransaction { tx -> Bool in
                try await lock(tx)
                let existing = try await tx.query(PostgresQuery(unsafeSQL: "SELECT checksum FROM \(table) WHERE version = $1", bindings: {
                    var b = PostgresBindings()
                    b.append(migration.version)
                    return b
                }()))
                if let row = existing.first {
                    // Another instance applied it while we waited for the lock.
                    guard try row.decode(String.self, at: 0) == migration.checksum else {
                        throw PostgresError(.migration,
                                            """
                                            migration \(migration.version) (\(migration.name)) was applied with different SQL: \
                                            checksum mismatch
                                            """)
                    }
                    return false
                }
                do {
                    try await tx.runScript(migration.sql)
                } catch let error as PostgresError {
                    var wrapped = PostgresError(.migration, "migration \(migration.version) (\(migration.name)) failed: \(error.message)",
                                                sqlState: error.sqlState)
                    wrapped.constraintName = error.constraintName
                    throw wrapped
                }
                var b = PostgresBindings()
                b.append(migration.version)
                b.append(migration.name)
                b.append(migration.checksum)
                try await tx.execute(PostgresQuery(unsafeSQL: "INSERT INTO \(table) (version, name, checksum) VALUES ($1, $2, $3)",
                                                   bindings: b))
                return true
            }
            if appliedNow {
                logger.info("migration applied", ["version": .int(migration.version), "name": .string(migration.name)])
                done.append(migration.version)
            }
        }
        return done
    }

    /// Takes the migration lock, waiting as long as another instance migrates.
    ///
    /// Neither the wait nor the migration itself is bound by the pool's `statement_timeout` (a
    /// relay's guards its intake): an index built over a large table may take minutes.
    private func lock(_ tx: PostgresConnection) async throws {
        try await tx.runScript("SET LOCAL statement_timeout = 0; SELECT pg_advisory_xact_lock(\(lockKey))")
    }
}
