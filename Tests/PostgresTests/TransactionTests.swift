import MailwakePostgres
import Testing

struct Boom: Error {}

@Suite("Transactions")
struct TransactionTests {
    func withTable(_ body: (PostgresClient, String) async throws -> Void) async throws {
        try await PG.withClient(poolSize: 2) { client async throws in
            let table = PG.uniqueName("tx")
            try await client.execute("CREATE TABLE \(identifier: table) (id int8 PRIMARY KEY, note text)")
            do {
                try await body(client, table)
            } catch {
                _ = try? await client.execute("DROP TABLE \(identifier: table)")
                throw error
            }
            try await client.execute("DROP TABLE \(identifier: table)")
        }
    }

    func rowCount(_ client: PostgresClient, _ table: String) async throws -> Int {
        try await client.query("SELECT count(*) FROM \(identifier: table)").scalar(Int.self) ?? -1
    }

    @Test("a transaction whose body returns is committed")
    func commit() async throws {
        try await withTable { client, table async throws in
            let value = try await client.withTransaction { tx async throws in
                try await tx.execute("INSERT INTO \(identifier: table) VALUES (1, 'a')")
                try await tx.execute("INSERT INTO \(identifier: table) VALUES (2, 'b')")
                return 42
            }
            #expect(value == 42)
            let rows = try await rowCount(client, table)
            #expect(rows == 2)
        }
    }

    @Test("a transaction whose body throws is rolled back and leaves no row")
    func rollbackOnThrow() async throws {
        try await withTable { client, table async throws in
            await #expect(throws: Boom.self) {
                try await client.withTransaction { tx async throws in
                    try await tx.execute("INSERT INTO \(identifier: table) VALUES (1, 'a')")
                    throw Boom()
                }
            }
            let rows = try await rowCount(client, table)
            #expect(rows == 0)
        }
    }

    @Test("a failed statement inside rolls the whole transaction back")
    func rollbackOnStatementError() async throws {
        try await withTable { client, table async throws in
            let e = await PG.error {
                try await client.withTransaction { tx async throws in
                    try await tx.execute("INSERT INTO \(identifier: table) VALUES (1, 'a')")
                    try await tx.execute("INSERT INTO \(identifier: table) VALUES (1, 'again')")
                }
            }
            #expect(e?.isUniqueViolation == true)
            let rows = try await rowCount(client, table)
            #expect(rows == 0)
        }
    }

    @Test("a body that swallows a statement error cannot commit")
    func swallowedErrorCannotCommit() async throws {
        try await withTable { client, table async throws in
            let e = await PG.error {
                try await client.withTransaction { tx async throws in
                    try await tx.execute("INSERT INTO \(identifier: table) VALUES (1, 'a')")
                    _ = try? await tx.execute("INSERT INTO \(identifier: table) VALUES (1, 'dup')")
                }
            }
            #expect(e?.code == .query)
            let rows = try await rowCount(client, table)
            #expect(rows == 0)
        }
    }

    @Test("a nested transaction is a savepoint: its rollback keeps the outer work")
    func savepoints() async throws {
        try await withTable { client, table async throws in
            try await client.withTransaction { tx async throws in
                try await tx.execute("INSERT INTO \(identifier: table) VALUES (1, 'outer')")
                _ = try? await tx.withTransaction { inner in
                    try await inner.execute("INSERT INTO \(identifier: table) VALUES (2, 'inner')")
                    throw Boom()
                }
                try await tx.execute("INSERT INTO \(identifier: table) VALUES (3, 'outer again')")
            }
            let ids = try await client.query("SELECT id FROM \(identifier: table) ORDER BY id").map { try $0.decode(Int.self, at: 0) }
            #expect(ids == [1, 3])
        }
    }

    @Test("a connection returned with an open transaction is rolled back before reuse")
    func leakedTransactionRolledBack() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let table = PG.uniqueName("leak")
            try await client.execute("CREATE TABLE \(identifier: table) (v int)")
            try await client.withConnection { conn async throws in
                try await conn.runScript("BEGIN")
                try await conn.execute("INSERT INTO \(identifier: table) VALUES (1)")
            }
            // Were the transaction still open, its lock would block DROP TABLE from another session.
            #expect(try await client.query("SELECT count(*) FROM \(identifier: table)").scalar(Int.self) == 0)
            try await PG.withClient(poolSize: 1) { other async throws in
                try await other.withConnection { conn async throws in
                    try await conn.runScript("SET lock_timeout = '5s'")
                    try await conn.runScript("DROP TABLE " + PostgresQuery.quoteIdentifier(table))
                }
            }
        }
    }

    @Test("serializable transactions run at that isolation level")
    func isolationLevel() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let level = try await client.withTransaction(level: .serializable) { tx async throws in
                try await tx.query("SHOW transaction_isolation").scalar(String.self)
            }
            #expect(level == "serializable")
        }
    }
}
