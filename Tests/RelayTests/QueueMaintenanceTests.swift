import MailwakeCore
import MailwakePostgres
@testable import RelayService
import StackSupport
import TestSupport
import Testing

/// The periodic pruning: its statements are not bound by the pool's `statement_timeout` (sized for intake), and one
/// kind of row that cannot be pruned does not keep the others from being pruned.
@Suite("Relay: queue maintenance", .serialized, .awaitedCleanup)
struct QueueMaintenanceTests {
    /// A relay whose sessions time out after 1 s, a maintenance on its pool, and rows for every pruning step to delete:
    /// a rate bucket untouched for days and the heartbeat row of an outpost that never paired.
    static func start() async throws -> (IntakeTests.Paired, QueueMaintenance) {
        let p = try await IntakeTests.Paired.start { $0.databaseURL = $0.databaseURL.appendingQueryItem("statement_timeout", "1000") }
        let app = p.stack.relay.app
        try await insertRowsToPrune(into: app.database)
        let maintenance = QueueMaintenance(database: app.database, configuration: app.configuration,
                                           metrics: RelayMetrics(MetricsRegistry()), logger: .disabled, clockMS: WallClock.milliseconds)
        return (p, maintenance)
    }

    /// Inserts (unless there) the rows every pruning step deletes, the rate bucket into `bucketsTable`.
    static func insertRowsToPrune(into database: PostgresClient, bucketsTable: String = "rate_buckets") async throws {
        try await database.execute("""
            INSERT INTO \(identifier: bucketsTable) (bucket, tokens, updated_ms, requested, granted) VALUES ('stale', 1, 1, 0, 0)
                ON CONFLICT DO NOTHING
            """)
        try await database.execute("""
            INSERT INTO outpost_heartbeats (outpost_id, last_seen_ms, mailboxes, failing, state) VALUES ('never-paired', 1, 1, 0, 'alive')
                ON CONFLICT DO NOTHING
            """)
    }

    /// How many rows of `table` have `column` = `value` (on a session of its own, without the relay's timeout).
    static func count(_ database: PostgresClient, _ table: String, _ column: String, _ value: String) async throws -> Int {
        try await database.query("SELECT count(*) FROM \(identifier: table) WHERE \(identifier: column) = \(value)").scalar(Int.self) ?? 0
    }

    /// Waits until a statement mentioning `table` has waited for a lock for more than `seconds` (or throws after 60 s).
    static func waitUntilAStatementWaitsForALock(on table: String, longerThanSeconds seconds: Double,
                                                 observer: PostgresClient) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await observer.query("""
            SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND strpos(query, \(table)) > 0
                AND now() - query_start > make_interval(secs => \(seconds))
            """).scalar(Int.self) == 0 {
            guard ContinuousClock.now < deadline else { throw PostgresError(.timeout, "no statement waited for the lock that long") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func pruningWaitsOutALockHeldLongerThanThePoolsStatementTimeout() async throws {
        let (p, maintenance) = try await Self.start()
        let other = PostgresClient(configuration: try .init(url: p.stack.relayDatabaseURL), logger: .disabled)
        let lock = try await HeldLock.take("LOCK TABLE rate_buckets IN ACCESS EXCLUSIVE MODE", on: other)
        let pruning = Task { try await maintenance.prune() }
        // Released once the pruning statement has waited for it longer than the pool's timeout, by the server's clock.
        try await lock.whileHeld {
            try await Self.waitUntilAStatementWaitsForALock(on: "rate_buckets", longerThanSeconds: 1.5, observer: other)
        }
        _ = try await pruning.value
        #expect(try await Self.count(other, "rate_buckets", "bucket", "stale") == 0)
        #expect(try await Self.count(other, "outpost_heartbeats", "outpost_id", "never-paired") == 0)
        await other.close()
    }

    @Test func aKindOfRowThatCannotBePrunedDoesNotKeepTheOthersFromIt() async throws {
        let (p, maintenance) = try await Self.start()
        // The renames run on a session of their own: on a loaded machine the exclusive lock they take can wait longer
        // than the relay's 1 s timeout (an autovacuum worker is only cancelled after the 1 s deadlock_timeout).
        let database = PostgresClient(configuration: try .init(url: p.stack.relayDatabaseURL), logger: .disabled)
        try await database.execute("ALTER TABLE rate_buckets RENAME TO rate_buckets_away")
        // Again, in case the relay's own maintenance (it prunes at start) got to them first on a slow machine.
        try await Self.insertRowsToPrune(into: database, bucketsTable: "rate_buckets_away")
        await #expect(throws: PostgresError.self, "the failed step is reported") { try await maintenance.prune() }
        // Counted before the table has its name back, which the relay's own maintenance would prune.
        let stale = try await Self.count(database, "rate_buckets_away", "bucket", "stale")
        try await database.execute("ALTER TABLE rate_buckets_away RENAME TO rate_buckets")
        let neverPaired = try await Self.count(database, "outpost_heartbeats", "outpost_id", "never-paired")
        await database.close()
        #expect(neverPaired == 0, "pruned after the failed step")
        #expect(stale == 1)
    }
}
