import MailwakeCore
import MailwakePostgres
import Synchronization
import TestSupport
import Testing

@Suite("Pool")
struct PoolTests {
    @Test("50 concurrent tasks over a pool of 4 all succeed with at most 4 server sessions")
    func boundedConcurrency() async throws {
        let appName = PG.uniqueName("pool4")
        let config = try PG.configuration(try await PG.server().url, poolSize: 4, applicationName: appName)
        let client = PostgresClient(configuration: config, logger: .disabled)
        let observer = try await PG.client(poolSize: 1)
        let maxSeen = MaxTracker()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<50 {
                group.addTask {
                    let v = try await client.query("SELECT \(Int64(i)) + 0 * length(pg_sleep(0.02)::text)").scalar(Int.self)
                    let sessions = try await observer.query("""
                                                            SELECT count(*) FROM pg_stat_activity WHERE application_name = \
                                                            \(appName)
                                                            """).scalar(Int.self) ?? 0
                    maxSeen.observe(sessions)
                    return v ?? -1
                }
            }
            var results = Set<Int>()
            for try await v in group { results.insert(v) }
            #expect(results == Set(0..<50))
        }
        let seen = maxSeen.value
        #expect(seen >= 1 && seen <= 4)
        #expect(client.connectionCount <= 4)
        await client.close()
        await observer.close()
    }

    @Test("pool metrics count open connections, connections in use and failed connects")
    func metrics() async throws {
        let registry = MetricsRegistry()
        let config = try PG.configuration(try await PG.server().url, poolSize: 2)
        let client = PostgresClient(configuration: config, logger: .disabled, metrics: registry, metricsPrefix: "mailwake_test_postgres")
        _ = try await client.query("SELECT 1")
        let text = registry.render()
        #expect(text.contains("mailwake_test_postgres_connections 1"))
        #expect(text.contains("mailwake_test_postgres_connections_in_use 0"))
        await client.close()
        #expect(registry.render().contains("mailwake_test_postgres_connections 0"))

        let port = try PortAllocator.freePort()
        let broken = PostgresClient(configuration: try PG.configuration("postgres://u:p@127.0.0.1:\(port)/db?sslmode=disable",
                                                                        poolSize: 1),
                                    logger: .disabled, metrics: registry, metricsPrefix: "mailwake_test_postgres")
        _ = await PG.error { try await broken.query("SELECT 1") }
        #expect(registry.render().contains("mailwake_test_postgres_connect_failures_total 1"))
        await broken.close()
    }

    @Test("a closed pool refuses work with .poolClosed")
    func closedPool() async throws {
        let client = try await PG.client(poolSize: 2)
        #expect(try await client.query("SELECT 1::int8").scalar(Int.self) == 1)
        await client.close()
        let e = await PG.error { try await client.query("SELECT 1") }
        #expect(e?.code == .poolClosed)
    }

    @Test("as a Service, the pool runs until its task is cancelled and then closes")
    func serviceLifecycle() async throws {
        let client = try await PG.client(poolSize: 1)
        let running = Task { try await client.run() }
        #expect(try await client.query("SELECT 1::int8").scalar(Int.self) == 1)
        running.cancel()
        try await running.value
        let e = await PG.error { try await client.query("SELECT 1") }
        #expect(e?.code == .poolClosed)
        #expect(client.connectionCount == 0)
    }

    @Test("closing the pool fails callers waiting for a connection and waits for the one in use")
    func closeWhileBusy() async throws {
        let client = try await PG.client(poolSize: 1)
        let observer = try await PG.observer()
        defer { Task { await observer.close() } }
        // Long enough that the holder is still busy when the pool closes, even on a loaded machine (close waits for it).
        let holder = Task { try await client.query("SELECT pg_sleep(8)") }
        try await PG.waitUntilRunning("pg_sleep(8)", observer: observer)
        let waiter = Task { try await client.query("SELECT 1") }
        try await Task.sleep(for: .milliseconds(200))
        await client.close()
        await #expect(throws: Never.self) { try await holder.value }
        let e = await PG.error { try await waiter.value }
        #expect(e?.code == .poolClosed)
    }

    @Test("a caller waits at most the checkout timeout for a free connection")
    func checkoutTimeout() async throws {
        try await PG.withClient(poolSize: 1, configure: { $0.checkoutTimeout = .milliseconds(200) }) { client async throws in
            let observer = try await PG.observer()
            defer { Task { await observer.close() } }
            // Busy for longer than any loaded machine takes to get here; cancelled once the timeout was seen.
            let holder = Task { try await client.query("SELECT pg_sleep(300)") }
            try await PG.waitUntilRunning("pg_sleep(300)", observer: observer)
            let e = await PG.error { try await client.query("SELECT 1") }
            #expect(e?.code == .timeout)
            _ = try await observer.query("""
                SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE strpos(query, 'pg_sleep(300)') > 0 AND pid <> pg_backend_pid()
                """)
            _ = try? await holder.value
        }
    }

    @Test("a connection to a closed port fails quickly with a connection error")
    func closedPort() async throws {
        let port = try PortAllocator.freePort()
        let client = try await PG.client(poolSize: 1,
                                         url: """
                                              postgres://nobody:pw@127.0.0.1:\(port)/db?sslmode=\
                                              disable
                                              """) { $0.connectTimeout = .seconds(10) }
        let e = await PG.error { try await client.query("SELECT 1") }
        #expect(e?.code == .connection)
        await client.close()
    }

    @Test("a wrong password is a connection error that does not contain the password")
    func wrongPassword() async throws {
        let server = try await PG.server()
        let wrong = "definitely-wrong-\(PG.uniqueName("pw"))"
        var config = try PG.configuration(server.url, poolSize: 1)
        config.password = wrong
        let client = PostgresClient(configuration: config, logger: .disabled)
        let e = await PG.error { try await client.query("SELECT 1") }
        if e == nil && server.isExternal { await client.close(); return }  // an external server with trust auth checks no password
        #expect(e?.code == .connection)
        #expect(e?.description.contains(wrong) == false)
        await client.close()
    }

    @Test("a connection used after its closure returned is refused")
    func escapedConnection() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let escaped = try await client.withConnection { $0 }
            let e = await PG.error { try await escaped.query("SELECT 1") }
            #expect(e?.code == .query)
        }
    }

    @Test("a server-terminated session is replaced before the next caller uses it")
    func terminatedSessionReplaced() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let pid = try await client.withConnection { try await $0.backendPID() }
            let killer = try await PG.client(poolSize: 1)
            _ = try await killer.query("SELECT pg_terminate_backend(\(pid))")
            await killer.close()
            try await Task.sleep(for: .milliseconds(200))
            let newPID = try await client.withConnection { try await $0.backendPID() }
            #expect(newPID != pid)
        }
    }
}

final class MaxTracker: Sendable {
    private let state = Mutex(0)
    func observe(_ v: Int) { state.withLock { $0 = max($0, v) } }
    var value: Int { state.withLock { $0 } }
}
