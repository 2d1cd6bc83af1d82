import MailwakePostgres

/// The figures of `deliveries` the operator reads: the `/admin` page and `GET /admin/v1/deliveries`.
struct DeliveryStatsStore: Sendable {
    let database: PostgresClient

    /// The queue as it stands.
    struct QueueFigures: Sendable {
        var queued: Int64
        var sending: Int64
        var dueNow: Int64
        /// When the longest-overdue due delivery became due (Unix ms); nil when none is due.
        var firstDueMS: Int64?
    }

    /// Sent (displayed counts as sent), failed and expired deliveries of the last minute, 5 minutes and hour, in one pass.
    func finishedWindows(nowMS: Int64) async throws -> [StatusSnapshot.Window] {
        let spans: [(label: String, seconds: Int64)] = [("last minute", 60), ("last 5 minutes", 300), ("last hour", 3600)]
        var counts: [String: [Int64]] = [:]
        for row in try await database.query("""
            SELECT CASE WHEN status = 'displayed' THEN 'sent' ELSE status END AS s,
                count(*) FILTER (WHERE updated_ms >= \(nowMS - 60_000)), count(*) FILTER (WHERE updated_ms >= \(nowMS - 300_000)), count(*)
            FROM deliveries WHERE status IN ('sent', 'displayed', 'failed', 'expired') AND updated_ms >= \(nowMS - 3_600_000) GROUP BY s
            """) {
            let (status, minute, five, hour) = try row.decode((String, Int64, Int64, Int64).self)
            counts[status] = [minute, five, hour]
        }
        return spans.enumerated().map { i, span in
            StatusSnapshot.Window(label: span.label, seconds: span.seconds, sent: counts["sent"]?[i] ?? 0,
                                  failed: counts["failed"]?[i] ?? 0,
                                  expired: counts["expired"]?[i] ?? 0)
        }
    }

    /// Queued, sending and due deliveries (one waiting out a retry delay is not due).
    func queueFigures(nowMS: Int64) async throws -> QueueFigures {
        let row = try await database.query("""
            SELECT count(*) FILTER (WHERE status = 'queued'), count(*) FILTER (WHERE status = 'sending'),
                   count(*) FILTER (WHERE next_attempt_ms <= \(nowMS)), min(next_attempt_ms) FILTER (WHERE next_attempt_ms <= \(nowMS))
            FROM deliveries WHERE status IN ('queued', 'sending')
            """).single()
        let (queued, sending, due, firstDue) = try row.decode((Int64, Int64, Int64, Int64?).self)
        return QueueFigures(queued: queued, sending: sending, dueNow: due, firstDueMS: firstDue)
    }

    /// Failed and expired deliveries since `sinceMS` by APNs reason, the 20 most frequent first.
    func failuresByReason(sinceMS: Int64) async throws -> [(reason: String, count: Int64)] {
        try await database.query("""
            SELECT COALESCE(apns_reason, 'unknown'), count(*) FROM deliveries
            WHERE status IN ('failed', 'expired') AND updated_ms >= \(sinceMS)
            GROUP BY 1 ORDER BY 2 DESC LIMIT 20
            """).map { row in
            let (reason, count) = try row.decode((String, Int64).self)
            return (reason: reason, count: count)
        }
    }

    /// The 20 latest failed or expired deliveries since `sinceMS`.
    func recentFailures(sinceMS: Int64) async throws -> [DeliveryListItem] {
        var bindings = PostgresBindings()
        bindings.append(sinceMS)
        return try await database.query(PostgresQuery(unsafeSQL: """
            SELECT \(DeliveryListItem.columns) FROM deliveries WHERE status IN ('failed', 'expired') AND updated_ms >= $1
            ORDER BY updated_ms DESC LIMIT 20
            """, bindings: bindings)).map(DeliveryListItem.init(row:))
    }

    /// The latest deliveries matching the operator's `?status=&since=&limit=`.
    func recent(_ q: DeliveryListQuery) async throws -> [DeliveryListItem] {
        var bindings = PostgresBindings()
        bindings.append(q.since * 1000)
        bindings.append(Int64(q.limit))
        bindings.append(q.status?.rawValue)
        return try await database.query(PostgresQuery(unsafeSQL: """
            SELECT \(DeliveryListItem.columns) FROM deliveries
            WHERE updated_ms >= $1 AND ($3::text IS NULL OR status = $3)
            ORDER BY updated_ms DESC LIMIT $2
            """, bindings: bindings)).map(DeliveryListItem.init(row:))
    }
}
