import TestSupport
import Foundation
import MailwakeSQLite
import Testing

@Suite struct TransactionTests {
    @Test func rollbackOnThrow() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.executeScript("CREATE TABLE t (x INTEGER)")
        await #expect(throws: TestFailure.self) {
            try await db.transaction { c in
                try c.execute("INSERT INTO t VALUES (1)")
                try c.execute("INSERT INTO t VALUES (2)")
                #expect(try c.queryValue("SELECT count(*) FROM t", as: Int64.self) == 2)
                throw TestFailure()
            }
        }
        #expect(try await db.queryValue("SELECT count(*) FROM t", as: Int64.self) == 0)
        #expect(try await db.withConnection { $0.isInTransaction } == false)

        // A failing statement inside rolls back the earlier ones too.
        try await db.executeScript("CREATE TABLE u (x INTEGER NOT NULL)")
        let error = await sqliteError {
            try await db.transaction { c in
                try c.execute("INSERT INTO u VALUES (1)")
                try c.execute("INSERT INTO u VALUES (NULL)")
            }
        }
        #expect(error?.code == .constraint)
        #expect(try await db.queryValue("SELECT count(*) FROM u", as: Int64.self) == 0)
    }

    @Test func commitAndNestedSavepoints() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.executeScript("CREATE TABLE t (x INTEGER)")
        let id = try await db.transaction { c -> Int64 in
            try c.execute("INSERT INTO t VALUES (1)")
            let id = c.lastInsertRowID
            // The inner failure undoes only the inner work.
            do {
                try c.transaction { inner in
                    try inner.execute("INSERT INTO t VALUES (2)")
                    throw TestFailure()
                }
            } catch is TestFailure {}
            try c.transaction { inner in try inner.execute("INSERT INTO t VALUES (3)") }
            return id
        }
        #expect(id == 1)
        let values = try await db.query("SELECT x FROM t ORDER BY x").map { try $0.get(0, as: Int64.self) }
        #expect(values == [1, 3])
    }

    @Test func deferredForeignKeyFailsAtCommitAndRollsBack() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.executeScript("""
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            """)
        let error = await sqliteError {
            try await db.transaction { c in try c.execute("INSERT INTO child VALUES (5)") }
        }
        #expect(error?.isForeignKeyViolation == true)
        #expect(try await db.withConnection { $0.isInTransaction } == false)
        #expect(try await db.queryValue("SELECT count(*) FROM child", as: Int64.self) == 0)
    }

    @Test func busyHandlingWithTwoConnectionsToOneFile() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("busy.db")
        let holder = try await SQLiteDatabase.open(path: path)
        let patient = try await SQLiteDatabase.open(.init(path: path, busyTimeout: .seconds(30)))
        let impatient = try await SQLiteDatabase.open(.init(path: path, busyTimeout: .milliseconds(50)))
        try await holder.executeScript("CREATE TABLE t (x INTEGER)")

        let holding = Flag()
        let release = Flag()
        let holderTask = Task {
            try await holder.transaction { c in
                try c.execute("INSERT INTO t VALUES (1)")
                holding.set()
                // Keep the write lock (this blocks the holder's own thread only).
                let deadline = ContinuousClock.now + .seconds(60)
                while !release.isSet, ContinuousClock.now < deadline { usleep(1000) }
            }
        }
        try await holding.wait()

        // WAL: readers are not blocked by the writer and see the last commit.
        #expect(try await impatient.queryValue("SELECT count(*) FROM t", as: Int64.self) == 0)
        // A writer with a short timeout gives up with `.busy`.
        let busy = await sqliteError { try await impatient.execute("INSERT INTO t VALUES (2)") }
        #expect(busy?.code == .busy)
        #expect(busy?.primaryResultCode == 5)  // SQLITE_BUSY
        // A writer with a long timeout waits for the lock and then succeeds.
        let started = ContinuousClock.now
        let releaser = Task {
            try await Task.sleep(for: .milliseconds(200))
            release.set()
        }
        try await patient.transaction { c in try c.execute("INSERT INTO t VALUES (3)") }
        #expect(ContinuousClock.now - started >= .milliseconds(150))
        try await releaser.value
        try await holderTask.value
        let values = try await holder.query("SELECT x FROM t ORDER BY x").map { try $0.get(0, as: Int64.self) }
        #expect(values == [1, 3])
    }
}
