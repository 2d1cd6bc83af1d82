import MailwakePostgres
import TestSupport
import Testing

/// Tests that kill and restart a private server.
@Suite("Server crash and restart")
struct RestartTests {
    @Test("a query running when the server is killed fails; after the restart queries work again")
    func killedMidQuery() async throws {
        let server = try await PostgresTestServer.start()
        defer { server.stop() }
        try await PG.withClient(poolSize: 2, url: server.url) { client async throws in
            #expect(try await client.query("SELECT 1::int8").scalar(Int.self) == 1)
            // Both pool connections open, so one is idle when the server dies.
            try await withThrowingTaskGroup(of: Void.self) { g in
                for _ in 0..<2 { g.addTask { _ = try await client.query("SELECT pg_sleep(0.1)") } }
                try await g.waitForAll()
            }
            let sleeper = Task { try await client.query("SELECT pg_sleep(30)") }
            try await Task.sleep(for: .milliseconds(300))
            await server.kill()
            let e = await PG.error { try await sleeper.value }
            #expect(e?.code == .connection)

            // While the server is down, queries fail with connection errors.
            let down = await PG.error { try await client.query("SELECT 1") }
            #expect(down?.code == .connection)

            try await server.restart()
            // The first query after the restart works (idle connections are checked and replaced).
            #expect(try await client.query("SELECT 2::int8").scalar(Int.self) == 2)
            for _ in 0..<5 { #expect(try await client.query("SELECT 3::int8").scalar(Int.self) == 3) }
        }
    }

    @Test("a connection that dies inside a transaction is not silently replaced mid-transaction")
    func diesInsideTransaction() async throws {
        let server = try await PostgresTestServer.start()
        defer { server.stop() }
        try await PG.withClient(poolSize: 1, url: server.url) { client async throws in
            try await client.execute("CREATE TABLE t (v int)")
            let e = await PG.error {
                try await client.withTransaction { tx async throws in
                    try await tx.execute("INSERT INTO t VALUES (1)")
                    await server.kill()
                    try await server.restart()
                    try await tx.execute("INSERT INTO t VALUES (2)")
                }
            }
            #expect(e?.code == .connection)
            #expect(try await client.query("SELECT count(*) FROM t").scalar(Int.self) == 0)
        }
    }

    @Test("LISTEN survives a server restart: the listener reconnects, says so, and delivers again")
    func listenerSurvivesRestart() async throws {
        let server = try await PostgresTestServer.start()
        defer { server.stop() }
        var config = try PG.configuration(server.url)
        config.reconnectBackoffMax = .milliseconds(500)
        let listener = PostgresListener(configuration: config, logger: .disabled)
        let channel = "wake"
        var it = try await listener.subscribe(to: channel).makeAsyncIterator()
        try await PG.withClient(poolSize: 1, url: server.url) { client async throws in
            try await client.notify(channel: channel, payload: "before")
            let pid = try await client.withConnection { try await $0.backendPID() }
            #expect(await nextEvent(&it) == .notification(PostgresNotification(channel: channel, payload: "before", backendPID: pid)))
        }
        await server.kill()
        try await server.restart()
        #expect(await nextEvent(&it, timeout: .seconds(60)) == .reconnected)
        try await PG.withClient(poolSize: 1, url: server.url) { client async throws in
            try await client.notify(channel: channel, payload: "after")
        }
        guard case .notification(let n) = await nextEvent(&it) else { Issue.record("nothing after restart"); return }
        #expect(n.payload == "after")
        await listener.close()
    }
}
