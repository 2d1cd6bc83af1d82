import Foundation
import MailwakeCore
import MailwakePostgres
import TestSupport
import Testing

/// `waitUntilReachable`: a service starting before its database waits for it.
@Suite("Waiting for the server at start")
struct StartupRetryTests {
    /// Waits until `sink` holds `count` lines with `message`.
    static func waitForLines(_ message: String, count: Int, in sink: MemoryLogSink, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while sink.all.filter({ $0.message == message }).count < count {
            guard ContinuousClock.now < deadline else { throw PostgresError(.timeout, "fewer than \(count) '\(message)' lines") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("a server that is down at start is retried with backoff, one warning per attempt, until it answers")
    func retriesUntilTheServerIsUp() async throws {
        let server = try await PostgresTestServer.start()
        defer { server.stop() }
        await server.kill()
        let logs = MemoryLogSink()
        let logger = Logger(service: "test", level: .debug, sink: logs)
        let client = try await PG.client(poolSize: 2, url: server.url, logger: logger)
        let waiting = Task {
            try await client.waitUntilReachable(.init(initialDelay: .milliseconds(100), maxDelay: .milliseconds(400),
                                                      total: .seconds(120)))
        }
        try await Self.waitForLines("database not reachable yet; retrying", count: 3, in: logs)
        try await server.restart()
        try await waiting.value
        #expect(try await client.query("SELECT 7::int8").scalar(Int.self) == 7)
        // Migrations run after the first successful connection.
        let applied = try await PostgresMigrator([PostgresMigration(version: 1, name: "t", sql: "CREATE TABLE t (v int)")],
                                                 logger: logger).migrate(client)
        #expect(applied == [1])
        await client.close()

        let retries = logs.all.filter { $0.message == "database not reachable yet; retrying" }
        #expect(retries.count >= 3)
        // One line per failed attempt: the connection's own warning is not repeated.
        let warnings = logs.all.filter { $0.level >= .warning }
        #expect(warnings.count == retries.count, "\(warnings.map(\.jsonLine))")
        // Attempts are numbered 1, 2, 3… and the delays double up to the cap.
        #expect(retries.map { $0.metadata["attempt"] } == (1...retries.count).map { LogValue.int($0) })
        let delays = retries.map { $0.metadata["retry_in_seconds"].flatMap { if case .double(let d) = $0 { d } else { nil } } ?? -1 }
        #expect(Array(delays.prefix(3)) == [0.1, 0.2, 0.4])
        #expect(delays.allSatisfy { $0 <= 0.4 })
        #expect(logs.all.contains { $0.message == "database reachable" && $0.metadata["attempt"] == .int(retries.count + 1) })
        // Never the password.
        #expect(!logs.lines.contains { $0.contains(server.password) })
    }

    @Test("a server that never comes up fails after the total wait with the last connection error")
    func givesUpAfterTheTotal() async throws {
        let port = try PortAllocator.freePort()
        let logs = MemoryLogSink()
        let client = try await PG.client(poolSize: 1,
                                         url: "postgres://mailwake:not-the-password-0123@127.0.0.1:\(port)/postgres?sslmode=disable",
                                         logger: Logger(service: "test", level: .debug, sink: logs))
        let start = ContinuousClock.now
        let error = await PG.error { try await client.waitUntilReachable(.init(initialDelay: .milliseconds(100),
                                                                               maxDelay: .milliseconds(200), total: .seconds(1))) }
        #expect(error?.code == .connection)
        #expect(error?.message.contains("not reachable within") == true, "\(String(describing: error))")
        #expect(ContinuousClock.now - start >= .seconds(1))
        #expect(logs.all.contains { $0.message == "database not reachable; giving up" })
        #expect(!logs.lines.contains { $0.contains("not-the-password-0123") })
        await client.close()
    }
}
