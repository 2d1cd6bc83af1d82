import MailwakeCore
import MailwakePostgres

extension RelayApp {
    /// Reads the figures of the `/admin` page (a few indexed queries).
    func statusSnapshot() async throws -> StatusSnapshot {
        let nowMS = clockMS()
        // One pass over the last hour's finished deliveries gives all three windows.
        let spans: [(label: String, seconds: Int64)] = [("last minute", 60), ("last 5 minutes", 300), ("last hour", 3600)]
        var counts: [String: [Int64]] = [:]
        for row in try await database.query("""
            SELECT CASE WHEN status = 'displayed' THEN 'sent' ELSE status END AS s, count(*) FILTER (WHERE updated_ms >= \(nowMS - 60_000)), count(*) FILTER (WHERE updated_ms >= \(nowMS - 300_000)), count(*)
            FROM deliveries WHERE status IN ('sent', 'displayed', 'failed', 'expired') AND updated_ms >= \(nowMS - 3_600_000) GROUP BY s
            """) {
            let (status, minute, five, hour) = try row.decode((String, Int64, Int64, Int64).self)
            counts[status] = [minute, five, hour]
        }
        let windows = spans.enumerated().map { i, span in
            StatusSnapshot.Window(label: span.label, seconds: span.seconds, sent: counts["sent"]?[i] ?? 0, failed: counts["failed"]?[i] ?? 0,
                                  expired: counts["expired"]?[i] ?? 0)
        }
        let q = try await database.query("""
            SELECT count(*) FILTER (WHERE status = 'queued'), count(*) FILTER (WHERE status = 'sending'),
                   count(*) FILTER (WHERE next_attempt_ms <= \(nowMS)), min(next_attempt_ms) FILTER (WHERE next_attempt_ms <= \(nowMS))
            FROM deliveries WHERE status IN ('queued', 'sending')
            """).single()
        // The longest-overdue *due* delivery: one waiting out a retry delay is not late.
        let (queued, sending, due, firstDue) = try q.decode((Int64, Int64, Int64, Int64?).self)
        let reasons = try await database.query("""
            SELECT COALESCE(apns_reason, 'unknown'), count(*) FROM deliveries
            WHERE status IN ('failed', 'expired') AND updated_ms >= \(nowMS - 3_600_000)
            GROUP BY 1 ORDER BY 2 DESC LIMIT 20
            """).map { row in try row.decode((String, Int64).self) }
        var failed = PostgresBindings()
        failed.append(nowMS - 86_400_000)
        let recent = try await database.query(PostgresQuery(unsafeSQL: """
            SELECT \(DeliveryListItem.columns) FROM deliveries WHERE status IN ('failed', 'expired') AND updated_ms >= $1
            ORDER BY updated_ms DESC LIMIT 20
            """, bindings: failed)).map(DeliveryListItem.init(row:))
        let active = try await database.query("SELECT count(*) FROM pairings WHERE state = 'active'").single().decode(Int64.self, at: 0)
        return StatusSnapshot(
            instance: configuration.instanceName, version: MailwakeVersion.current, generatedAt: nowMS / 1000, windows: windows,
            queued: queued, sending: sending, dueNow: due, oldestAgeSeconds: firstDue.map { Double(max(0, nowMS - $0)) / 1000 } ?? 0,
            failuresByReason: reasons.map { (reason: $0.0, count: $0.1) }, recentFailures: recent,
            acceptedHere: relayMetrics.accepted.current, apnsWindowLimit: apns.window.limit, apnsInFlight: apns.window.inFlight,
            activePairings: active)
    }
}
