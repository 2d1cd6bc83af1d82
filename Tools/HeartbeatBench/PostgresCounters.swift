import MailwakeBenchKit
import MailwakePostgres

/// PostgreSQL's write counters for one database at one instant, and deltas of them.
struct PostgresCounters {
    var commits: Int64
    var inserted: Int64
    var updated: Int64
    var hotUpdated: Int64
    var deleted: Int64
    var walBytes: Int64

    /// Reads the counters of `database` (the query itself is one commit); a busy
    /// backend's counters reach them within PostgreSQL's 10 s idle flush.
    static func read(_ client: PostgresClient, database: String) async throws -> PostgresCounters {
        let row = try await client.query("""
            SELECT d.xact_commit, d.tup_inserted, d.tup_updated, d.tup_deleted,
                   COALESCE((SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'outpost_heartbeats'), 0),
                   pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint
            FROM pg_stat_database d WHERE d.datname = \(database)
            """).single()
        let (commits, inserted, updated, deleted, hot, wal) = try row.decode((Int64, Int64, Int64, Int64, Int64, Int64).self)
        return PostgresCounters(commits: commits, inserted: inserted, updated: updated, hotUpdated: hot, deleted: deleted, walBytes: wal)
    }

    /// The writes between `earlier` and this, as JSON; `per` divides them (heartbeats).
    func since(_ earlier: PostgresCounters, per heartbeats: Int) -> [String: Any] {
        let n = Double(max(1, heartbeats))
        return [
            "xact_commit": commits - earlier.commits, "tup_inserted": inserted - earlier.inserted,
            "tup_updated": updated - earlier.updated,
            "heartbeat_rows_hot_updated": hotUpdated - earlier.hotUpdated, "tup_deleted": deleted - earlier.deleted,
            "wal_bytes": walBytes - earlier.walBytes,
            "commits_per_heartbeat": round1(Double(commits - earlier.commits) / n),
            "wal_bytes_per_heartbeat": (Double(walBytes - earlier.walBytes) / n).rounded(),
        ]
    }
}
