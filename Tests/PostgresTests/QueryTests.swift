import Foundation
import MailwakeCore
import MailwakePostgres
import Testing

@Suite("Queries")
struct QueryTests {
    @Test("interpolated values become numbered parameters, never SQL text")
    func interpolationBinds() {
        let email = "a@example.com"
        let limit = 10
        let q: PostgresQuery = "SELECT id FROM users WHERE email = \(email) LIMIT \(limit)"
        #expect(q.sql == "SELECT id FROM users WHERE email = $1 LIMIT $2")
        #expect(q.bindings.count == 2)
        #expect(q.bindings.types == [.text, .int8])
        #expect(!q.description.contains(email))
    }

    @Test("an SQL injection attempt is stored as data")
    func injectionStaysData() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let table = PG.uniqueName("inj")
            try await client.execute("CREATE TABLE \(identifier: table) (name text NOT NULL)")
            let evil = "x'); DROP TABLE \(table); --"
            try await client.execute("INSERT INTO \(identifier: table) (name) VALUES (\(evil))")
            let stored = try await client.query("SELECT name FROM \(identifier: table)").single().decode(String.self, at: 0)
            #expect(stored == evil)
            let count = try await client.query("SELECT count(*) FROM \(identifier: table) WHERE name = \(evil)").scalar(Int.self)
            #expect(count == 1)
            try await client.execute("DROP TABLE \(identifier: table)")
        }
    }

    @Test("identifiers with quotes are quoted, not spliced")
    func identifierQuoting() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let weird = PG.uniqueName("we\"ird; DROP")
            try await client.execute("CREATE TABLE \(identifier: weird) (v int)")
            let exists = try await client.query("SELECT count(*) FROM pg_tables WHERE tablename = \(weird)").scalar(Int.self)
            #expect(exists == 1)
            try await client.execute("DROP TABLE \(identifier: weird)")
        }
    }

    @Test("a duplicate key surfaces SQLSTATE 23505 with the constraint name and without the value")
    func uniqueViolation() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let table = PG.uniqueName("uniq")
            try await client.execute("CREATE TABLE \(identifier: table) (email text CONSTRAINT \(identifier: table + "_email") UNIQUE)")
            let email = "private-person@example.org"
            try await client.execute("INSERT INTO \(identifier: table) VALUES (\(email))")
            let e = await PG.error { try await client.execute("INSERT INTO \(identifier: table) VALUES (\(email))") }
            #expect(e?.code == .server)
            #expect(e?.sqlState == PostgresError.SQLState.uniqueViolation)
            #expect(e?.isUniqueViolation == true)
            #expect(e?.constraintName == table + "_email")
            #expect(e?.description.contains(email) == false)
            try await client.execute("DROP TABLE \(identifier: table)")
        }
    }

    @Test("a data exception message does not echo the offending input")
    func dataExceptionRedacted() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let e = await PG.error { try await client.query("SELECT \("not-a-number-4711")::int") }
            #expect(e?.sqlState == PostgresError.SQLState.invalidTextRepresentation)
            #expect(e?.description.contains("4711") == false)
        }
    }

    @Test("a syntax error is a server error and the connection stays usable")
    func syntaxError() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let e = await PG.error { try await client.query("SELEC 1") }
            #expect(e?.sqlState == PostgresError.SQLState.syntaxError)
            #expect(try await client.query("SELECT 1::int8").scalar(Int.self) == 1)
        }
    }

    @Test("affected row counts come from the command tag")
    func affectedRows() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let table = PG.uniqueName("aff")
            try await client.execute("CREATE TABLE \(identifier: table) (v int)")
            #expect(try await client.execute("INSERT INTO \(identifier: table) SELECT generate_series(1, 5)") == 5)
            #expect(try await client.execute("UPDATE \(identifier: table) SET v = v + 1 WHERE v > \(Int32(2))") == 3)
            #expect(try await client.execute("DELETE FROM \(identifier: table)") == 5)
            try await client.execute("DROP TABLE \(identifier: table)")
        }
    }

    @Test("a statement is prepared once per connection and reused")
    func preparedOncePerConnection() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let marker = PG.uniqueName("prep")
            try await client.withConnection { conn async throws in
                for i in 0..<5 {
                    let v = try await conn.query("SELECT \(Int64(i)) AS \(identifier: marker)").scalar(Int.self)
                    #expect(v == i)
                }
                let prepared = try await conn.query("""
                                                    SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE \
                                                    \("%" + marker + "%") AND name LIKE 'mw_%'
                                                    """).scalar(Int.self)
                #expect(prepared == 1)
            }
        }
    }

    @Test("the statement cache stays bounded and keeps working after evictions")
    func boundedStatementCache() async throws {
        try await PG.withClient(poolSize: 1, configure: { $0.statementCacheCapacity = 4 }) { client async throws in
            try await client.withConnection { conn async throws in
                for i in 0..<20 {
                    let v = try await conn.query(PostgresQuery(unsafeSQL: "SELECT \(i)::int8 + $1",
                                                               bindings: { var b = PostgresBindings(); b.append(Int64(1)); return b }()))
                                                                   .scalar(Int.self)
                    #expect(v == i + 1)
                }
                let prepared = try await conn.query("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'mw_%'").scalar(Int.self)
                #expect(prepared! <= 4)
            }
        }
    }

    @Test("long statements alike in length and at both ends are cached apart, and so are parameter types")
    func statementsAlikeAtBothEndsAreCachedApart() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            try await client.withConnection { conn async throws in
                // Same length, same first and last 200 characters; only the middle differs.
                let pad = String(repeating: " ", count: 200)
                for round in 0..<2 {
                    for value in [111, 222, 333] {
                        let v = try await conn.query(PostgresQuery(unsafeSQL: "SELECT\(pad)\(value)::int8\(pad)")).scalar(Int.self)
                        #expect(v == value, "round \(round)")
                    }
                }
                // One text, two parameter types: each its own statement.
                let sql = "SELECT pg_typeof($1)::text"
                var asInt = PostgresBindings()
                asInt.append(Int64(7))
                var asText = PostgresBindings()
                asText.append("7")
                #expect(try await conn.query(PostgresQuery(unsafeSQL: sql, bindings: asInt)).scalar(String.self) == "bigint")
                #expect(try await conn.query(PostgresQuery(unsafeSQL: sql, bindings: asText)).scalar(String.self) == "text")
                #expect(try await conn.query(PostgresQuery(unsafeSQL: sql, bindings: asInt)).scalar(String.self) == "bigint")
            }
        }
    }

    @Test("a changed table does not break a cached statement outside a transaction")
    func stalePlanRetried() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let table = PG.uniqueName("stale")
            try await client.execute("CREATE TABLE \(identifier: table) (a int)")
            try await client.execute("INSERT INTO \(identifier: table) VALUES (1)")
            try await client.withConnection { conn async throws in
                _ = try await conn.query("SELECT * FROM \(identifier: table)")
                try await conn.runScript("ALTER TABLE \(PostgresQuery.quoteIdentifier(table)) ADD COLUMN b text DEFAULT 'x'")
                let rows = try await conn.query("SELECT * FROM \(identifier: table)")
                #expect(rows.columns.count == 2)
            }
            try await client.execute("DROP TABLE \(identifier: table)")
        }
    }

    @Test("a statement over the statement timeout fails with .timeout and SQLSTATE 57014")
    func statementTimeout() async throws {
        try await PG.withClient(poolSize: 1, configure: { $0.statementTimeout = .milliseconds(200) }) { client async throws in
            let e = await PG.error { try await client.query("SELECT pg_sleep(5)") }
            #expect(e?.code == .timeout)
            #expect(e?.sqlState == PostgresError.SQLState.queryCanceled)
            #expect(try await client.query("SELECT 1::int8").scalar(Int.self) == 1)
        }
    }

    @Test("statement_timeout=0 in the URL turns the server's statement timeout off for the pool's sessions")
    func statementTimeoutOff() async throws {
        let server = try await PG.server()
        let admin = try await PG.client(poolSize: 1)
        let name = PG.uniqueName("mwdb")
        try await admin.withConnection { try await $0.runScript("CREATE DATABASE \(PostgresQuery.quoteIdentifier(name))") }
        // The database's own default, which a pool asking for none must override.
        try await admin.withConnection {
            try await $0.runScript("ALTER DATABASE \(PostgresQuery.quoteIdentifier(name)) SET statement_timeout = 1000")
        }
        let url = server.url(database: name)
        let unset = try await PG.withClient(poolSize: 1, url: url) { try await $0.query("SHOW statement_timeout").scalar(String.self) }
        #expect(unset == "1s")
        let none = url.appendingQueryItem("statement_timeout", "0")
        let off = try await PG.withClient(poolSize: 1, url: none) { client async throws in
            try await client.query("SELECT pg_sleep(1.5)")
            return try await client.query("SHOW statement_timeout").scalar(String.self)
        }
        #expect(off == "0")
        try await admin.withConnection { try await $0.runScript("DROP DATABASE \(PostgresQuery.quoteIdentifier(name))") }
        await admin.close()
    }

    @Test("cancelling the task cancels the running statement on the server")
    func taskCancellation() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let task = Task { try await client.query("SELECT pg_sleep(30)") }
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(try await client.query("SELECT 2::int8").scalar(Int.self) == 2)
        }
    }

    @Test("a script runs several statements; the simple protocol takes no values")
    func script() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let table = PG.uniqueName("scr")
            let q = PostgresQuery.quoteIdentifier(table)
            let rows = try await client.withConnection { conn async throws in
                try await conn.runScript("""
                                         CREATE TABLE \(q) (v int); INSERT INTO \(q) VALUES (1), (2); SELECT sum(v)::int8 FROM \(q); \
                                         DROP TABLE \(q)
                                         """)
            }
            #expect(rows.commandTag == "DROP TABLE")
        }
    }

    @Test("debug logs carry SQL text but never parameter values or the password")
    func logsWithoutValues() async throws {
        let sink = MemoryLogSink()
        let logger = Logger(service: "test", level: .trace, sink: sink)
        let secret = "s3cret-parameter-\(UUID().uuidString)"
        try await PG.withClient(poolSize: 1, logger: logger) { client async throws in
            _ = try await client.query("SELECT \(secret)::text AS v")
            _ = await PG.error { try await client.query("SELECT \(secret)::int") }
        }
        let lines = sink.lines.joined(separator: "\n")
        #expect(lines.contains("SELECT $1::text AS v"))
        #expect(!lines.contains(secret))
        let password = try await PG.server().password
        if !password.isEmpty { #expect(!lines.contains(password)) }
    }

    @Test("a connection over the Unix socket works")
    func unixSocket() async throws {
        let server = try await PG.server()
        guard let dir = server.socketDirectory else { return }  // external server: TCP only
        try await PG.withClient(poolSize: 1, configure: { $0.unixSocketDirectory = dir }) { client async throws in
            let family = try await client.query("SELECT inet_server_addr() IS NULL").scalar(Bool.self)
            #expect(family == true)
        }
    }
}

@Suite("Reachability")
struct ReachabilityTests {
    @Test("isReachable is true for the running server and false, without throwing, for a closed port")
    func reachable() async throws {
        let running = try await PG.withClient(poolSize: 1) { await $0.isReachable() }
        #expect(running)
        let closed = try await PG.withClient(poolSize: 1, url: "postgres://u:p@127.0.0.1:1/db?sslmode=disable") { client in
            await client.isReachable()
        }
        #expect(!closed)
    }
}
