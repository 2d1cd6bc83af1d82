import MailwakeCore
import MailwakePostgres

/// Keeps the queue tidy and visible: queue depth and age gauges every few
/// seconds; deletes finished deliveries past their retention and pairings
/// that were never confirmed, in bounded batches.
struct QueueMaintenance: Service {
    var name: String { "queue-maintenance" }
    let database: PostgresClient
    let configuration: RelayConfiguration
    let metrics: RelayMetrics
    let logger: Logger
    let clockMS: @Sendable () -> Int64

    /// How long one maintenance statement may run: its own, not the pool's `statement_timeout` (15 s unless the
    /// database URL says otherwise), which is sized for intake; a count or a scan over a large queue may take longer.
    static let statementTimeout: PostgresQuery = "SET LOCAL statement_timeout = '5min'"

    func run() async throws {
        var rounds = 0
        while !Task.isCancelled {
            do {
                try await updateGauges()
            } catch {
                logger.warning("queue gauges not updated; retrying", ["error": .string("\(error)")])
            }
            // Pruning does not wait on the gauges: a failing count must not let the tables grow.
            if rounds % 12 == 0 { _ = try? await prune() }
            rounds += 1
            try? await Task.sleep(for: .seconds(5))
        }
    }

    /// Runs `body` in a transaction of its own under `statementTimeout`.
    private func maintaining<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await database.withTransaction { tx in
            try await tx.execute(Self.statementTimeout)
            return try await body(tx)
        }
    }

    /// Runs one maintenance statement under `statementTimeout`; returns the rows it changed.
    private func maintain(_ statement: PostgresQuery) async throws -> Int {
        try await maintaining { try await $0.execute(statement) }
    }

    /// Queue depth, deliveries due, and how long the longest-waiting due one has been due.
    ///
    /// A delivery waiting out a deliberate retry (APNs answered 429 or 5xx,
    /// `next_attempt_ms` in the future) is in the depth but neither due nor
    /// overdue, so the backlog alert does not fire for it; a claim whose
    /// lease ended (its instance died) is due again.
    func updateGauges() async throws {
        let now = clockMS()
        let row = try await maintaining { tx in
            try await tx.query("""
                SELECT count(*), count(*) FILTER (WHERE next_attempt_ms <= \(now)),
                    min(next_attempt_ms) FILTER (WHERE next_attempt_ms <= \(now))
                FROM deliveries WHERE status IN ('queued', 'sending')
                """).single()
        }
        let (depth, due, firstDue) = try row.decode((Int64, Int64, Int64?).self)
        metrics.queueDepth.set(Double(depth))
        metrics.queueDue.set(Double(due))
        metrics.queueOldestSeconds.set(firstDue.map { Double(max(0, now - $0)) / 1000 } ?? 0)
    }

    /// Deletes what retention allows; returns the number of deliveries deleted.
    ///
    /// Each kind of row is pruned on its own: one that fails (logged) does not keep the others from
    /// being pruned; the first failure is thrown at the end.
    @discardableResult
    func prune() async throws -> Int {
        let now = clockMS()
        var failure: (any Error)?
        func step<T>(_ what: String, _ body: () async throws -> T) async -> T? {
            do {
                return try await body()
            } catch {
                logger.warning("pruning failed; retrying next round", ["rows": .string(what), "error": .string("\(error)")])
                if failure == nil { failure = error }
                return nil
            }
        }
        let deleted = await step("deliveries") { try await pruneDeliveries(nowMS: now) } ?? 0
        if deleted > 0 { logger.info("finished deliveries pruned", ["count": .int(deleted)]) }
        // A bucket untouched for a day is full again (for any sane RATE_BURST / RATE_LIMIT).
        _ = await step("rate buckets") { try await maintain("DELETE FROM rate_buckets WHERE updated_ms < \(now - 86_400_000)") }
        // Unconfirmed pairings a day past their expiry are of no use to anyone.
        _ = await step("pairings") {
            try await maintain("DELETE FROM pairings WHERE state IN ('pending', 'consented') AND expires_at < \(now / 1000 - 86400)")
        }
        if let trimmed = await step("catch-up envelopes", { try await pruneCatchUp(nowMS: now) }), trimmed > 0 {
            logger.info("catch-up log pruned", ["count": .int(trimmed)])
        }
        if let heartbeats = await step("heartbeats", { try await pruneHeartbeats() }), heartbeats > 0 {
            logger.info("heartbeats of unpaired outposts pruned", ["count": .int(heartbeats)])
        }
        if let failure { throw failure }
        return deleted
    }

    /// Deletes finished deliveries past `RETENTION`, in bounded batches; returns how many.
    func pruneDeliveries(nowMS now: Int64) async throws -> Int {
        var deleted = 0
        while true {
            let n = try await maintain("""
                DELETE FROM deliveries WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM deliveries WHERE status IN ('sent', 'displayed', 'failed', 'expired')
                        AND updated_ms < \(now - configuration.retention * 1000)
                    LIMIT 5000))
                """)
            deleted += n
            if n < 5000 { return deleted }
        }
    }

    /// Deletes catch-up envelopes past `CATCHUP_RETENTION` and beyond each
    /// device's newest `CATCHUP_LIMIT`, in bounded batches; returns how many.
    ///
    /// Between rounds a device may hold a few more than the limit for a
    /// while; `GET /v1/devices/{id}/envelopes` applies both bounds itself.
    @discardableResult
    func pruneCatchUp(nowMS now: Int64) async throws -> Int {
        var deleted = 0
        let cutoff = now - configuration.catchupRetention * 1000
        while true {
            let n = try await maintain("""
                DELETE FROM catchup_envelopes WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM catchup_envelopes WHERE accepted_ms < \(cutoff) LIMIT 5000))
                """)
            deleted += n
            if n < 5000 { break }
        }
        let limit = Int64(configuration.catchupLimit)
        while true {
            // Devices over the limit (an index-only scan of (device_id, seq)),
            // a batch of them at a time; each keeps its newest `limit`.
            let n = try await maintain("""
                WITH over AS (
                    SELECT device_id FROM catchup_envelopes GROUP BY device_id HAVING count(*) > \(limit) LIMIT 100
                ), bound AS (
                    SELECT o.device_id, (SELECT c.seq FROM catchup_envelopes c WHERE c.device_id = o.device_id
                                         ORDER BY c.seq DESC OFFSET \(limit) LIMIT 1) AS last_dropped
                    FROM over o
                )
                DELETE FROM catchup_envelopes c USING bound b WHERE c.device_id = b.device_id AND c.seq <= b.last_dropped
                """)
            deleted += n
            if n == 0 { break }
        }
        return deleted
    }

    /// Deletes the heartbeat rows of outposts without an active pairing, in
    /// bounded batches; returns how many.
    ///
    /// Such an outpost is neither watched nor alerted for; should it pair
    /// again, its next heartbeat starts a fresh row (a confirm racing a batch
    /// loses at most the row, never an alert).
    @discardableResult
    func pruneHeartbeats() async throws -> Int {
        var deleted = 0
        while true {
            let n = try await maintain("""
                DELETE FROM outpost_heartbeats WHERE outpost_id = ANY(ARRAY(
                    SELECT h.outpost_id FROM outpost_heartbeats h
                    WHERE NOT EXISTS (SELECT 1 FROM pairings p WHERE p.outpost_id = h.outpost_id AND p.state = 'active')
                    LIMIT 5000))
                """)
            deleted += n
            if n < 5000 { return deleted }
        }
    }
}
