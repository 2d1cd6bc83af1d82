import TestSupport
import Foundation
import MailwakeSQLite
import Testing

@Suite struct ValueTests {
    @Test func typesRoundTripIncludingNullUnicodeAndBlobs() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let db = try await SQLiteDatabase.open(path: dir.file("values.db"))
        try await db.executeScript("CREATE TABLE v (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB, f INTEGER, n TEXT)")

        let allBytes = (0...255).map { UInt8($0) }
        let unicode = "Grüße, 世界 👋🏽 e\u{301} \u{0} after NUL \"quoted\" 'single' \\ back"
        let cases: [(Int64, Double, String, [UInt8], Bool)] = [
            (.max, .pi, unicode, allBytes, true),
            (.min, -0.5e-300, "", [], false),
            (0, 1e308, "plain", [0], true),
        ]
        for (index, c) in cases.enumerated() {
            try await db.execute(
                "INSERT INTO v (id, i, r, s, b, f, n) VALUES (?, ?, ?, ?, ?, ?, ?)",
                index, c.0, c.1, c.2, c.3, c.4, String?.none)
        }
        let rows = try await db.query("SELECT i, r, s, b, f, n, typeof(b) AS tb, typeof(s) AS ts FROM v ORDER BY id")
        #expect(rows.count == cases.count)
        for (row, c) in zip(rows, cases) {
            #expect(try row.get("i", as: Int64.self) == c.0)
            #expect(try row.get("r", as: Double.self) == c.1)
            #expect(try row.get("s", as: String.self) == c.2)
            #expect(try row.get("b", as: [UInt8].self) == c.3)
            #expect(try row.get("f", as: Bool.self) == c.4)
            #expect(try row.get("n", as: String?.self) == nil)
            #expect(row["n"] == .null)
            // Empty strings and blobs stay TEXT and BLOB, never NULL.
            #expect(try row.get("tb", as: String.self) == "blob")
            #expect(try row.get("ts", as: String.self) == "text")
        }
        #expect(try rows[0].get("s", as: String.self).unicodeScalars.contains("\u{0}"))
        #expect(try rows[0].get(0, as: Int.self) == Int.max)
        #expect(try rows[0].get("I", as: Int64.self) == .max, "column names match without case")
    }

    @Test func optionalsBindAndDecodeNull() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.executeScript("CREATE TABLE o (a INTEGER, b TEXT, c BLOB, d REAL)")
        try await db.execute("INSERT INTO o VALUES (?, ?, ?, ?)", Int64?.none, String?.none, [UInt8]?.none, Double?.none)
        try await db.execute("INSERT INTO o VALUES (?, ?, ?, ?)", Int64?.some(7), String?.some("x"), [UInt8]?.some([1, 2]),
                             Double?.some(2.5))
        let rows = try await db.query("SELECT a, b, c, d FROM o ORDER BY rowid")
        #expect(try rows[0].get("a", as: Int64?.self) == nil)
        #expect(try rows[0].get("b", as: String?.self) == nil)
        #expect(try rows[0].get("c", as: [UInt8]?.self) == nil)
        #expect(try rows[0].get("d", as: Double?.self) == nil)
        #expect(try rows[1].get("a", as: Int64?.self) == 7)
        #expect(try rows[1].get("b", as: String?.self) == "x")
        #expect(try rows[1].get("c", as: [UInt8]?.self) == [1, 2])
        #expect(try rows[1].get("d", as: Double?.self) == 2.5)
        #expect(rows[0].values == [.null, .null, .null, .null])
    }

    @Test func typeMismatchNamesTheColumnNotTheValue() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        let row = try #require(try await db.query("SELECT 'secret-value-123' AS token, NULL AS empty, 2 AS two").first)
        let error = try #require(await sqliteError { try row.get("token", as: Int64.self) })
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("token"))
        #expect(!error.description.contains("secret-value-123"))
        #expect(await sqliteError { try row.get("empty", as: String.self) }?.code == .typeMismatch)
        #expect(await sqliteError { try row.get("two", as: Bool.self) }?.code == .typeMismatch)
        #expect(await sqliteError { try row.get("missing", as: Int64.self) }?.code == .noSuchColumn)
    }

    @Test func namedParameters() async throws {
        let db = try await SQLiteDatabase.open(.inMemory)
        try await db.executeScript("CREATE TABLE p (a TEXT, b INTEGER)")
        try await db.execute("INSERT INTO p VALUES (:a, @b)", named: ["a": "x", "@b": 2])
        let row = try #require(try await db.query("SELECT a, b FROM p WHERE a = :a", named: [":a": "x"]).first)
        #expect(try row.get("b", as: Int64.self) == 2)
        #expect(await sqliteError { try await db.execute("INSERT INTO p VALUES (:a, :b)", named: ["a": "x"]) }?.code == .binding)
        #expect(await sqliteError { try await db.execute("INSERT INTO p VALUES (:a, :b)",
                                                         named: ["a": "x", "b": 1, "c": 3]) }?.code == .binding)
        #expect(await sqliteError { try await db.execute("INSERT INTO p VALUES (?, ?)", "only one") }?.code == .binding)
    }
}
