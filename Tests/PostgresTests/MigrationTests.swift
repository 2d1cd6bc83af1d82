import MailwakeCore
import MailwakePostgres
import Testing

@Suite("Migrations")
struct MigrationTests {
    static let migrations = [
        PostgresMigration(version: 1, name: "create accounts", sql: """
            CREATE TABLE accounts (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE);
            CREATE TABLE migration_runs (n int NOT NULL);
            INSERT INTO migration_runs VALUES (1);
            """),
        PostgresMigration(version: 2, name: "add created_at",
                          sql: """
                               ALTER TABLE accounts ADD COLUMN created_at timestamptz NOT NULL DEFAULT now(); INSERT INTO \
                               migration_runs VALUES (2);
                               """),
        PostgresMigration(version: 5, name: "index",
                          sql: "CREATE INDEX accounts_created_at ON accounts (created_at); INSERT INTO migration_runs VALUES (5);"),
    ]

    @Test("migrations apply in order, are recorded, and a second run applies nothing")
    func applyOnce() async throws {
        let url = try await PG.freshDatabase()
        try await PG.withClient(poolSize: 2, url: url) { client async throws in
            let migrator = PostgresMigrator(Self.migrations, logger: .disabled)
            #expect(try await migrator.migrate(client) == [1, 2, 5])
            #expect(try await migrator.migrate(client) == [])
            let recorded = try await client.query("SELECT version, name, checksum FROM schema_migrations ORDER BY version")
            #expect(try recorded.map { try $0.decode(Int64.self, at: 0) } == [1, 2, 5])
            #expect(try recorded[0].decode(String.self, at: 2) == Self.migrations[0].checksum)
            #expect(try await client.query("SELECT count(*) FROM migration_runs").scalar(Int.self) == 3)
        }
    }

    @Test("concurrent migrators starting at once apply each migration exactly once")
    func concurrentMigrators() async throws {
        let url = try await PG.freshDatabase()
        var clients: [PostgresClient] = []
        for _ in 0..<6 { clients.append(try await PG.client(poolSize: 2, url: url)) }
        let applied = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for client in clients {
                group.addTask { try await PostgresMigrator(Self.migrations, logger: .disabled).migrate(client) }
            }
            var all: [Int64] = []
            for try await versions in group { all += versions }
            return all
        }
        #expect(applied.sorted() == [1, 2, 5])
        let runs = try await clients[0].query("SELECT n FROM migration_runs ORDER BY n").map { try $0.decode(Int32.self, at: 0) }
        #expect(runs == [1, 2, 5])
        for c in clients { await c.close() }
    }

    @Test("a migration waits for another's lock and runs past the pool's statement timeout")
    func noStatementTimeout() async throws {
        let url = try await PG.freshDatabase()
        let slow = [PostgresMigration(version: 1, name: "slow", sql: "SELECT pg_sleep(0.6); CREATE TABLE slow_done (n int);")]
        try await PG.withClient(poolSize: 2, url: url, configure: { $0.statementTimeout = .milliseconds(300) }) { client async throws in
            let (migrating, running) = AsyncStream<Void>.makeStream()
            // Holds the migration lock itself, as an instance in the middle of a migration does.
            let holder = Task {
                defer { running.finish() }
                try await client.withTransaction { tx async throws in
                    try await tx.runScript("SET LOCAL statement_timeout = 0")
                    try await tx.query("SELECT pg_advisory_xact_lock(\(PostgresMigrator.defaultLockKey))")
                    running.yield()
                    try await tx.query("SELECT pg_sleep(0.6)")
                }
            }
            for await _ in migrating { break }
            #expect(try await PostgresMigrator(slow, logger: .disabled).migrate(client) == [1])
            try await holder.value
            #expect(try await client.query("SELECT count(*) FROM slow_done").scalar(Int.self) == 0)
            // The migrator's setting ended with its transactions: every session still has the pool's timeout.
            for _ in 0..<2 {
                async let a = client.query("SELECT current_setting('statement_timeout'), pg_sleep(0.05)::text").single()
                async let b = client.query("SELECT current_setting('statement_timeout'), pg_sleep(0.05)::text").single()
                #expect(try await [a, b].map { try $0.decode(String.self, at: 0) } == ["300ms", "300ms"])
            }
        }
    }

    @Test("a migration changed after it was applied is refused")
    func changedChecksum() async throws {
        let url = try await PG.freshDatabase()
        try await PG.withClient(poolSize: 1, url: url) { client async throws in
            try await PostgresMigrator(Self.migrations, logger: .disabled).migrate(client)
            var edited = Self.migrations
            edited[1] = PostgresMigration(version: 2, name: "add created_at", sql: edited[1].sql + " -- edited")
            let e = await PG.error { try await PostgresMigrator(edited, logger: .disabled).migrate(client) }
            #expect(e?.code == .migration)
            #expect(e?.message.contains("checksum") == true)
        }
    }

    @Test("a failing migration is rolled back entirely and reported with its version")
    func failingMigration() async throws {
        let url = try await PG.freshDatabase()
        try await PG.withClient(poolSize: 1, url: url) { client async throws in
            let bad = Self.migrations + [PostgresMigration(version: 6, name: "broken",
                                                           sql: "CREATE TABLE half (v int); SELECT no_such_function();")]
            let e = await PG.error { try await PostgresMigrator(bad, logger: .disabled).migrate(client) }
            #expect(e?.code == .migration)
            #expect(e?.message.contains("6") == true)
            #expect(try await client.query("SELECT to_regclass('half') IS NULL").scalar(Bool.self) == true)
            #expect(try await client.query("SELECT max(version) FROM schema_migrations").scalar(Int64.self) == 5)
        }
    }

    @Test("versions out of order are refused before touching the database")
    func unorderedVersions() async throws {
        let client = try await PG.client(poolSize: 1, url: "postgres://u:p@127.0.0.1:1/db")
        let e = await PG.error {
            try await PostgresMigrator([.init(version: 2, name: "b", sql: "SELECT 1"), .init(version: 1, name: "a", sql: "SELECT 1")],
                                       logger: .disabled).migrate(client)
        }
        #expect(e?.code == .migration)
        await client.close()
    }

    @Test("the checksum is the SHA-256 of the SQL text")
    func checksum() {
        #expect(PostgresMigration(version: 1, name: "x",
                                  sql: "abc").checksum == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(PostgresMigration(version: 1, name: "x",
                                  sql: "").checksum == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = String(repeating: "a", count: 1000)
        #expect(PostgresMigration(version: 1, name: "x",
                                  sql: long).checksum == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
