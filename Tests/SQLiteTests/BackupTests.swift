import TestSupport
import Foundation
import MailwakeSQLite
import Synchronization
import Testing

@Suite struct BackupTests {
    static let schema = """
        CREATE TABLE batch (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
        CREATE TABLE item (id INTEGER PRIMARY KEY, batch_id INTEGER NOT NULL REFERENCES batch(id), payload BLOB NOT NULL);
        """

    /// One batch: a parent row and `n` children, in one transaction.
    static func writeBatch(_ c: SQLiteConnection, n: Int) throws {
        try c.execute("INSERT INTO batch (n) VALUES (?)", n)
        let batch = c.lastInsertRowID
        for i in 0..<n {
            try c.execute("INSERT INTO item (batch_id, payload) VALUES (?, ?)", batch, [UInt8](repeating: UInt8(i & 0xFF), count: 900))
        }
    }

    static func prefill(_ db: SQLiteDatabase) async throws {
        try await db.executeScript(schema)
        try await db.transaction { c in
            for _ in 0..<200 { try writeBatch(c, n: 10) }
        }
    }

    /// Opens a copy and checks it is whole: integrity, foreign keys, and every batch complete.
    static func checkCopy(_ path: String) async throws -> Int64 {
        #expect(fileMode(path) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
        let copy = try await SQLiteDatabase.open(path: path)
        #expect(try await copy.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
        #expect(try await copy.query("PRAGMA foreign_key_check").isEmpty)
        let torn = try await copy.queryValue(
            "SELECT count(*) FROM batch b WHERE b.n != (SELECT count(*) FROM item i WHERE i.batch_id = b.id)", as: Int64.self)
        #expect(torn == 0)
        return try #require(try await copy.queryValue("SELECT count(*) FROM batch", as: Int64.self))
    }

    @Test func backupWhileAnotherTaskWritesYieldsAConsistentCopy() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let db = try await SQLiteDatabase.open(path: dir.file("source.db"))
        try await Self.prefill(db)

        let stop = Flag()
        let written = Atomic<Int>(0)
        let writer = Task {
            while !stop.isSet {
                try await db.transaction { c in try Self.writeBatch(c, n: 3) }
                written.add(1, ordering: .relaxed)
            }
        }
        let before = written.load(ordering: .relaxed)
        let report = try await db.backup(to: dir.file("copy.db"), pagesPerStep: 8)
        let during = written.load(ordering: .relaxed) - before
        stop.set()
        try await writer.value

        #expect(report.steps > 10)
        #expect(during > 0, "writes went on while the backup ran")
        let batches = try await Self.checkCopy(dir.file("copy.db"))
        #expect(batches >= 200)
        // The copy is a snapshot at its end; the source went on.
        #expect(try await db.queryValue("SELECT count(*) FROM batch", as: Int64.self)! >= batches)
    }

    @Test func backupWhileAnotherConnectionWritesCompletes() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("source.db")
        let db = try await SQLiteDatabase.open(path: path)
        try await Self.prefill(db)
        let other = try await SQLiteDatabase.open(path: path)

        let stop = Flag()
        let writer = Task {
            while !stop.isSet {
                try await other.transaction { c in try Self.writeBatch(c, n: 2) }
            }
        }
        try await db.backup(to: dir.file("copy.db"), pagesPerStep: 4)
        stop.set()
        try await writer.value
        #expect(try await Self.checkCopy(dir.file("copy.db")) >= 200)
    }

    @Test func backupReplacesAnOldCopyAndRefusesItsOwnFile() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let db = try await SQLiteDatabase.open(path: dir.file("source.db"))
        try await Self.prefill(db)
        try await db.backup(to: dir.file("copy.db"))
        try await db.transaction { c in try Self.writeBatch(c, n: 1) }
        try await db.backup(to: dir.file("copy.db"))
        #expect(try await Self.checkCopy(dir.file("copy.db")) == 201)
        #expect(await sqliteError { try await db.backup(to: dir.file("source.db")) }?.code == .backup)
    }
}
