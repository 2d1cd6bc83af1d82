public import MailwakePostgres

/// What PostgreSQL has done so far, for the databases a benchmark uses:
/// commits and row writes per database, WAL position, the size of each
/// table with its indexes, and the server's CPU time; `since` turns two
/// readings into per-envelope and per-second figures.
public struct PostgresFootprint: Sendable {
    /// One database of the benchmark: a label for the report, its name, and a client connected to it (for its table sizes).
    public struct Database: Sendable {
        public var label: String, name: String, client: PostgresClient
        public init(label: String, name: String, client: PostgresClient) { (self.label, self.name, self.client) = (label, name, client) }
    }

    /// One table: bytes with indexes and TOAST, live and dead rows (PostgreSQL's estimates).
    struct Table: Sendable {
        var bytes: Int64, live: Int64, dead: Int64
    }

    var commits: [String: Int64] = [:]
    var rows: [String: [String: Int64]] = [:]
    var tables: [String: [String: Table]] = [:]
    var walBytes: Int64 = 0
    /// Nil when the server's processes are not readable here (another machine).
    var cpuSeconds: Double?

    /// Reads everything now (the queries themselves are a few commits). Commit and row counters reach
    /// `pg_stat_database` when a backend flushes them: within 10 s of going idle, so read a settled server.
    public static func read(admin: PostgresClient, databases: [Database]) async throws -> PostgresFootprint {
        var f = PostgresFootprint()
        for db in databases {
            let row = try await admin.query("""
                SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = \(db.name)
                """).single()
            let (commits, inserted, updated, deleted) = try row.decode((Int64, Int64, Int64, Int64).self)
            f.commits[db.label] = commits
            f.rows[db.label] = ["inserted": inserted, "updated": updated, "deleted": deleted]
            var tables: [String: Table] = [:]
            for row in try await db.client.query("""
                SELECT s.relname::text, pg_total_relation_size(s.relid), s.n_live_tup, s.n_dead_tup FROM pg_stat_user_tables s
                """) {
                let (name, bytes, live, dead) = try row.decode((String, Int64, Int64, Int64).self)
                tables[name] = Table(bytes: bytes, live: live, dead: dead)
            }
            f.tables[db.label] = tables
        }
        f.walBytes = try await admin.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint").single().decode(Int64.self,
            at: 0)
        // Every process of the server: the live ones, and the postmaster's reaped children (autovacuum workers, closed connections).
        let pids = try await admin.query("SELECT pid FROM pg_stat_activity").map { try $0.decode(Int32.self, at: 0) }
        if let postmaster = pids.lazy.compactMap(BenchSystem.parent).first,
           BenchSystem.cpuSeconds(pid: postmaster, reapedChildren: true) > 0 {
            f.cpuSeconds = pids.reduce(BenchSystem.cpuSeconds(pid: postmaster,
                                                              reapedChildren: true)) { $0 + BenchSystem.cpuSeconds(pid: $1) }
        }
        return f
    }

    /// The work between `earlier` and this reading, whole and per envelope (`envelopes`) and per second (`seconds`).
    public func since(_ earlier: PostgresFootprint, envelopes: Int, seconds: Double) -> [String: Any] {
        let n = Double(max(1, envelopes)), s = max(seconds, 0.001)
        let committed = commits.merging(earlier.commits) { now, then in now - then }
        let totalCommits = Double(committed.values.reduce(0, +))
        let wal = Double(walBytes - earlier.walBytes)
        var rowWrites: [String: [String: Int64]] = [:]
        var totalRowWrites: Int64 = 0
        for (label, now) in rows {
            let then = earlier.rows[label] ?? [:]
            rowWrites[label] = now.merging(then) { a, b in a - b }
            totalRowWrites += rowWrites[label]!.values.reduce(0, +)
        }
        var storage: [String: Any] = [:]
        for (label, now) in tables {
            let then = earlier.tables[label] ?? [:]
            let grown = now.mapValues { $0.bytes }.merging(then.mapValues { -$0.bytes }) { a, b in a + b }.filter { $0.value != 0 }
            let bytes = Double(grown.values.reduce(0, +))
            storage[label] = [
                "bytes": Int64(bytes), "tables_bytes": grown,
                "tables_rows": now.filter { grown[$0.key] != nil }.mapValues { ["live": $0.live, "dead": $0.dead] },
                "bytes_per_envelope": (bytes / n).rounded(), "gb_per_million_envelopes": round1(bytes / n * 1e6 / 1e9 * 10) / 10,
            ] as [String: Any]
        }
        var postgres: [String: Any] = [
            "xact_commit": committed, "commits_per_envelope": (totalCommits / n * 1000).rounded() / 1000,
            "commits_per_second": round1(totalCommits / s),
            "wal_bytes": Int64(wal), "wal_bytes_per_envelope": (wal / n).rounded(), "wal_bytes_per_second": (wal / s).rounded(),
            "rows_written": rowWrites, "row_writes_per_envelope": (Double(totalRowWrites) / n * 1000).rounded() / 1000,
        ]
        if let cpu = cpuSeconds, let before = earlier.cpuSeconds {
            postgres["cpu_seconds"] = ((cpu - before) * 100).rounded() / 100
            postgres["cpu_us_per_envelope"] = round1((cpu - before) * 1e6 / n)
        }
        return ["postgres": postgres, "storage": storage]
    }
}
