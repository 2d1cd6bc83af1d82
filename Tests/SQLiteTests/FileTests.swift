import TestSupport
import Foundation
@testable import MailwakeSQLite
import Testing

@Suite struct FileTests {
    @Test func newDatabaseFileHasMode0600() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("new.db")
        let db = try await SQLiteDatabase.open(path: path)
        try await db.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        #expect(fileMode(path) == 0o600)
        // SQLite gives the WAL and shared-memory files the database file's mode.
        #expect(fileMode(path + "-wal") == 0o600)
        #expect(fileMode(path + "-shm") == 0o600)
    }

    @Test func existingFileKeepsItsMode() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("existing.db")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]))
        _ = try await SQLiteDatabase.open(path: path)
        #expect(fileMode(path) == 0o640)
    }

    @Test func walModeForeignKeysAndSynchronousAreActive() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let db = try await SQLiteDatabase.open(path: dir.file("wal.db"))
        #expect(try await db.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
        #expect(try await db.queryValue("PRAGMA foreign_keys", as: Int64.self) == 1)
        #expect(try await db.queryValue("PRAGMA synchronous", as: Int64.self) == 1)  // NORMAL
        #expect(try await db.queryValue("PRAGMA busy_timeout", as: Int64.self) == 5000)
    }

    @Test func operationsRunOnTheDatabaseThreadOneAtATime() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.executeScript("CREATE TABLE t (x INTEGER)")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask { try await db.execute("INSERT INTO t VALUES (?)", i) }
            }
            try await group.waitForAll()
        }
        #expect(try await db.queryValue("SELECT count(*) FROM t", as: Int64.self) == 200)
        #expect(try await db.queryValue("SELECT sum(x) FROM t", as: Int64.self) == 199 * 200 / 2)
    }

    @Test func preparedStatementsAreCachedAndReused() async throws {
        let db = try await SQLiteDatabase.open(.init(path: ":memory:", statementCacheCapacity: 2))
        let counts = try await db.withConnection { c -> [Int] in
            try c.executeScript("CREATE TABLE t (x INTEGER)")
            let start = c.statementsPrepared
            for i in 0..<10 { try c.execute("INSERT INTO t VALUES (?)", i) }
            let afterInserts = c.statementsPrepared - start
            for _ in 0..<3 {
                _ = try c.query("SELECT x FROM t")
                _ = try c.query("SELECT count(*) FROM t")
                _ = try c.query("SELECT max(x) FROM t")
            }
            // Three statements cycling through a cache of two: every use misses.
            return [afterInserts, c.statementsPrepared - start - afterInserts, c.cachedStatementCount]
        }
        #expect(counts == [1, 9, 2])
    }

    @Test func migrationChecksumsAreTheSHA256OfTheSQL() {
        let m = SQLiteMigration(version: 1, name: "t", sql: "abc")
        #expect(m.checksum == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
