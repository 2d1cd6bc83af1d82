import TestSupport
import Foundation
import MailwakeSQLite
import Testing

@Suite struct MigrationTests {
    static let first = SQLiteMigration(version: 1, name: "create mailbox", sql: """
        CREATE TABLE mailbox (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE message (id INTEGER PRIMARY KEY, mailbox_id INTEGER NOT NULL REFERENCES mailbox(id));
        """)
    static let second = SQLiteMigration(version: 2, name: "mailbox host", sql: """
        ALTER TABLE mailbox ADD COLUMN host TEXT;
        CREATE INDEX message_mailbox ON message (mailbox_id);
        """)

    @Test func appliedOnceInOrder() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let db = try await SQLiteDatabase.open(path: dir.file("m.db"))
        let migrator = SQLiteMigrator([Self.second, Self.first])
        #expect(try await migrator.migrate(db) == [1, 2])
        #expect(try await migrator.migrate(db) == [])
        #expect(try await db.queryValue("SELECT count(*) FROM schema_migrations", as: Int64.self) == 2)
        try await db.execute("INSERT INTO mailbox (name, host) VALUES (?, ?)", "inbox", "imap.example")

        // A later program with one more migration applies only that one.
        let third = SQLiteMigration(version: 3, name: "flags", sql: "ALTER TABLE message ADD COLUMN seen INTEGER NOT NULL DEFAULT 0;")
        #expect(try await SQLiteMigrator([Self.first, Self.second, third]).migrate(db) == [3])
        let applied = try await db.withConnection { c in try SQLiteMigrator.appliedMigrations(c).map(\.checksum) }
        #expect(applied == [Self.first.checksum, Self.second.checksum, third.checksum])
        #expect(applied.allSatisfy { $0.hasPrefix("sha256:") && $0.count == 71 })

        // Reopening the file: nothing left to do.
        try await db.close()
        let reopened = try await SQLiteDatabase.open(path: dir.file("m.db"))
        #expect(try await SQLiteMigrator([Self.first, Self.second, third]).migrate(reopened) == [])
    }

    @Test func changedChecksumIsRefused() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await SQLiteMigrator([Self.first]).migrate(db)
        let edited = SQLiteMigration(version: 1, name: Self.first.name, sql: Self.first.sql + "\n-- edited")
        let error = await sqliteError { try await SQLiteMigrator([edited, Self.second]).migrate(db) }
        #expect(error?.code == .migrationChecksumMismatch)
        #expect(error?.message.contains("migration 1") == true)
        // Nothing after the refused check was applied.
        #expect(try await db.queryValue("SELECT count(*) FROM schema_migrations", as: Int64.self) == 1)
    }

    @Test func databaseFromANewerProgramIsRefused() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await SQLiteMigrator([Self.first, Self.second]).migrate(db)
        let error = await sqliteError { try await SQLiteMigrator([Self.first]).migrate(db) }
        #expect(error?.code == .migration)
    }

    @Test func failingMigrationIsRolledBackAndNotRecorded() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        let broken = SQLiteMigration(version: 2, name: "broken", sql: "CREATE TABLE half (x); CREATE TABLE nonsense (;")
        let error = await sqliteError { try await SQLiteMigrator([Self.first, broken]).migrate(db) }
        #expect(error?.code == .sql)
        #expect(error?.message.contains("migration 2 (broken)") == true)
        #expect(try await db.queryValue("SELECT max(version) FROM schema_migrations", as: Int64.self) == 1)
        #expect(try await db.queryValue("SELECT count(*) FROM sqlite_schema WHERE name = 'half'", as: Int64.self) == 0)
        // The fixed list then applies.
        #expect(try await SQLiteMigrator([Self.first, Self.second]).migrate(db) == [2])
    }

    @Test func invalidListsAreRefused() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        let duplicate = SQLiteMigration(version: 1, name: "again", sql: "SELECT 1;")
        #expect(await sqliteError { try await SQLiteMigrator([Self.first, duplicate]).migrate(db) }?.code == .migration)
        // A migration older than the newest applied one that was never applied.
        try await SQLiteMigrator([Self.first, Self.second]).migrate(db)
        let late = SQLiteMigration(version: 3, name: "late", sql: "SELECT 1;")
        let later = SQLiteMigration(version: 4, name: "later", sql: "SELECT 1;")
        try await SQLiteMigrator([Self.first, Self.second, later]).migrate(db)
        #expect(await sqliteError { try await SQLiteMigrator([Self.first, Self.second, late, later]).migrate(db) }?.code == .migration)
    }
}
