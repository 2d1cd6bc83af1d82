import Foundation
import MailwakeSQLite
import Testing

@Suite struct SafetyTests {
    @Test func injectionAttemptStaysData() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.executeScript("CREATE TABLE users (name TEXT NOT NULL); INSERT INTO users VALUES ('alice');")
        let hostile = "x'); DROP TABLE users; --"
        try await db.execute("INSERT INTO users (name) VALUES (?)", hostile)
        let names = try await db.query("SELECT name FROM users ORDER BY rowid").map { try $0.get("name", as: String.self) }
        #expect(names == ["alice", hostile])
        // Looking the value up as data finds exactly that row, and `OR 1=1` is just text.
        #expect(try await db.queryValue("SELECT count(*) FROM users WHERE name = ?", "' OR 1=1 --", as: Int64.self) == 0)
        #expect(try await db.queryValue("SELECT count(*) FROM users WHERE name = ?", hostile, as: Int64.self) == 1)
        let row = try #require(try await db.queryRow("SELECT rowid, name FROM users WHERE name = ?", hostile))
        #expect(try row.get("rowid", as: Int64.self) == 2)
    }

    @Test func oneStatementPerCall() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.executeScript("CREATE TABLE t (x)")
        let error = await sqliteError { try await db.execute("INSERT INTO t VALUES (1); DROP TABLE t") }
        #expect(error?.code == .statementShape)
        #expect(try await db.queryValue("SELECT count(*) FROM t", as: Int64.self) == 0)
        // Trailing semicolons, whitespace and comments are fine.
        try await db.execute("INSERT INTO t VALUES (?);  -- done\n", 1)
        #expect(await sqliteError { try await db.execute("   ") }?.code == .statementShape)
        #expect(await sqliteError { try await db.execute("SELEC 1") }?.code == .sql)
    }

    @Test func foreignKeyViolationIsAnError() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.executeScript("""
            CREATE TABLE mailbox (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE message (id INTEGER PRIMARY KEY, mailbox_id INTEGER NOT NULL REFERENCES mailbox(id), subject TEXT);
            """)
        #expect(try await db.queryValue("PRAGMA foreign_keys", as: Int64.self) == 1)
        try await db.execute("INSERT INTO mailbox (id, name) VALUES (1, 'inbox')")
        try await db.execute("INSERT INTO message (mailbox_id, subject) VALUES (1, 'ok')")

        let error = try #require(await sqliteError {
            try await db.execute("INSERT INTO message (mailbox_id, subject) VALUES (?, ?)", 99, "subject-marker-7731")
        })
        #expect(error.code == .constraint)
        #expect(error.isForeignKeyViolation)
        #expect(error.resultCode == 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
        #expect(!error.description.contains("subject-marker-7731"))
        #expect(await sqliteError { try await db.execute("DELETE FROM mailbox WHERE id = 1") }?.isForeignKeyViolation == true)

        // A unique violation names the column, never the bound value.
        let unique = try #require(await sqliteError {
            try await db.execute("INSERT INTO mailbox (name) VALUES (?)", "inbox")
        })
        #expect(unique.isUniqueViolation)
        #expect(unique.description.contains("mailbox.name"))
        #expect(!unique.description.contains("inbox"))
        #expect(try await db.queryValue("SELECT count(*) FROM message", as: Int64.self) == 1)
    }

    @Test func closedDatabaseRefusesWork() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.close()
        #expect(await sqliteError { try await db.execute("SELECT 1") }?.code == .closed)
        try await db.close()  // idempotent
    }

    @Test func openingAMissingDirectoryFailsClearly() async throws {
        let error = await sqliteError { try await SQLiteDatabase.open(path: "/nonexistent-mailwake-dir/x.db") }
        #expect(error?.code == .cannotOpen)
        #expect(error?.message.contains("/nonexistent-mailwake-dir/x.db") == true)
    }
}
