import MailwakePostgres
import TestSupport
import Testing

/// Multi-host URLs: libpq's host list, `target_session_attrs=read-write`, and a primary that dies.
@Suite("Failover between the servers of a host list")
struct FailoverTests {
    @Test("a host list skips a server that refuses connections")
    func skipsRefusingServer() async throws {
        let server = try await PG.server()
        var config = try PG.configuration(server.url)
        let live = config.endpoints
        config.endpoints = [.init(host: "127.0.0.1", port: Int(try PortAllocator.freePort()))] + live
        let client = PostgresClient(configuration: config, logger: .disabled)
        #expect(try await client.query("SELECT 1::int8").scalar(Int.self) == 1)
        await client.close()
    }

    @Test("""
        target_session_attrs=read-write skips the standby, and after the primary dies and the standby is promoted \
        the pool and the listener move to it
        """)
    func followsPromotion() async throws {
        let pair = try await PostgresTestReplication.start()
        defer { pair.stop() }
        var config = try PG.configuration(pair.clients.url, poolSize: 2)
        // The standby first: read-write must pass over it.
        config.endpoints = config.endpoints.reversed()
        config.reconnectBackoffMax = .milliseconds(200)
        let client = PostgresClient(configuration: config, logger: .disabled)
        let listener = PostgresListener(configuration: config, logger: .disabled)
        var events = try await listener.subscribe(to: "wake").makeAsyncIterator()
        #expect(try await client.query("SELECT inet_server_port()").scalar(Int.self) == pair.primary.port)
        try await client.execute("CREATE TABLE t (v int)")
        try await client.execute("INSERT INTO t VALUES (1)")  // on the standby too before it returns (synchronous commit)

        await pair.killPrimary()
        let lost = await PG.error { try await client.execute("INSERT INTO t VALUES (2)") }
        #expect(lost?.code == .connection, "work on the dead primary fails with a connection error")
        let meanwhile = await PG.error { try await client.execute("INSERT INTO t VALUES (3)") }
        #expect(meanwhile?.code == .connection, "with no read-write server, connecting fails")

        try await pair.promoteStandby()
        let port = try await Self.eventually { try await client.query("SELECT inet_server_port()").scalar(Int.self) }
        #expect(port == pair.standby.port)
        #expect(try await client.query("SELECT count(*) FROM t WHERE v = 1").scalar(Int.self) == 1, "the committed row survived")
        try await client.execute("INSERT INTO t VALUES (4)")

        #expect(await nextEvent(&events, timeout: .seconds(60)) == .reconnected)
        try await client.notify(channel: "wake", payload: "after")
        guard case .notification(let n) = await nextEvent(&events) else {
            Issue.record("no notification after the failover")
            return
        }
        #expect(n.payload == "after")
        await listener.close()
        await client.close()
    }

    @Test("a write refused because the server is read-only closes its connection when the lease ends, so the next lease connects again")
    func readOnlyServerIsLeft() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let first = try await client.withConnection { c async throws in
                // What a standby answers for every write.
                try await c.execute("SET default_transaction_read_only = on")
                let e = await PG.error { try await c.execute(PostgresQuery(unsafeSQL: "CREATE TABLE \(PG.uniqueName("ro")) (v int)")) }
                #expect(e?.sqlState == PostgresError.SQLState.readOnlySQLTransaction)
                return try await c.backendPID()
            }
            let second = try await client.withConnection { try await $0.backendPID() }
            #expect(second != first)
        }
    }

    @Test("a statement cancelled while its commit waits for the synchronous standby fails instead of reporting success")
    func cancelledSynchronousCommit() async throws {
        // A standby that never comes: every commit waits for it.
        let server = try await PostgresTestServer.start(settings: ["synchronous_standby_names=nobody", "synchronous_commit=on"])
        defer { server.stop() }
        try await PG.withClient(poolSize: 2, url: server.url) { client async throws in
            try await client.withTransaction { tx async throws in
                try await tx.execute("SET LOCAL synchronous_commit = local")
                try await tx.execute("CREATE TABLE t (v int)")
            }
            let insert = Task { try await client.execute("INSERT INTO t VALUES (1)") }
            let deadline = ContinuousClock.now + .seconds(30)
            while try await client.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'").scalar(Int.self) == 0 {
                guard ContinuousClock.now < deadline else { throw TestHarnessError("the insert never waited for the standby") }
                try await Task.sleep(for: .milliseconds(10))
            }
            insert.cancel()
            let e = await PG.error { try await insert.value }
            #expect(e?.code == .connection, "the commit is reported as uncertain, not done")
            #expect(e?.message.contains("synchronous standby") == true)
            // The server did keep it locally: exactly what a failover could lose.
            #expect(try await client.query("SELECT count(*) FROM t").scalar(Int.self) == 1)
        }
    }

    /// Runs `body` until it stops failing with an unavailability (connection) error, for at most 60 s.
    static func eventually<T>(_ body: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                return try await body()
            } catch let error as PostgresError where error.code == .connection && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}
