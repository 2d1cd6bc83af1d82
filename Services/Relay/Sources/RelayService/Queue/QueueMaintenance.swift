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

    func run() async throws {
        var rounds = 0
        while !Task.isCancelled {
            do {
                try await updateGauges()
                if rounds % 12 == 0 { try await prune() }
            } catch {
                logger.warning("queue maintenance failed; retrying", ["error": .string("\(error)")])
            }
            rounds += 1
            try? await Task.sleep(for: .seconds(5))
        }
    }

    /// Queue depth, deliveries due, and how long the longest-waiting due one has been due.
    ///
    /// A delivery waiting out a deliberate retry (APNs answered 429 or 5xx,
    /// `next_attempt_ms` in the future) is in the depth but neither due nor
    /// overdue, so the backlog alert does not fire for it; a claim whose
    /// lease ended (its instance died) is due again.
    func updateGauges() async throws {
        let now = clockMS()
        let row = try await database.query("""
            SELECT count(*), count(*) FILTER (WHERE next_attempt_ms <= \(now)),
                min(next_attempt_ms) FILTER (WHERE next_attempt_ms <= \(now))
            FROM deliveries WHERE status IN ('queued', 'sending')
            """).single()
        let (depth, due, firstDue) = try row.decode((Int64, Int64, Int64?).self)
        metrics.queueDepth.set(Double(depth))
        metrics.queueDue.set(Double(due))
        metrics.queueOldestSeconds.set(firstDue.map { Double(max(0, now - $0)) / 1000 } ?? 0)
    }

    /// Deletes what retention allows; returns the number of deliveries deleted.
    @discardableResult
    func prune() async throws -> Int {
        let now = clockMS()
        var deleted = 0
        while true {
            let n = try await database.execute("""
                DELETE FROM deliveries WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM deliveries WHERE status IN ('sent', 'displayed', 'failed', 'expired')
                        AND updated_ms < \(now - configuration.retention * 1000)
                    LIMIT 5000))
                """)
            deleted += n
            if n < 5000 { break }
        }
        // A bucket untouched for a day is full again (for any sane RATE_BURST / RATE_LIMIT).
        try await database.execute("DELETE FROM rate_buckets WHERE updated_ms < \(now - 86_400_000)")
        // Unconfirmed pairings a day past their expiry are of no use to anyone.
        try await database.execute("DELETE FROM pairings WHERE state IN ('pending', 'consented') AND expires_at < \(now / 1000 - 86400)")
        if deleted > 0 { logger.info("finished deliveries pruned", ["count": .int(deleted)]) }
        let trimmed = try await pruneCatchUp(nowMS: now)
        if trimmed > 0 { logger.info("catch-up log pruned", ["count": .int(trimmed)]) }
        let heartbeats = try await pruneHeartbeats()
        if heartbeats > 0 { logger.info("heartbeats of unpaired outposts pruned", ["count": .int(heartbeats)]) }
        return deleted
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
            let n = try await database.execute("""
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
            let n = try await database.execute("""
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
            let n = try await database.execute("""
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
