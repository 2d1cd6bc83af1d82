public import MailwakePostgres

/// Per-statement work from `pg_stat_statements` (calls, rows, execution time,
/// WAL) when the server preloads it (`shared_preload_libraries`); otherwise nothing.
public struct StatementStats: Sendable {
    let admin: PostgresClient

    /// Creates the extension in the admin database; nil when the server does not preload the module.
    public static func enable(_ admin: PostgresClient) async -> StatementStats? {
        do {
            try await admin.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            try await admin.execute("SELECT pg_stat_statements_reset()")
            return StatementStats(admin: admin)
        } catch {
            return nil
        }
    }

    /// Forgets what was counted so far.
    public func reset() async throws {
        try await admin.execute("SELECT pg_stat_statements_reset()")
    }

    /// The `top` statements of `databases` by execution time, with totals and per-envelope figures (`envelopes`).
    public func read(databases: [String], envelopes: Int, top: Int = 10) async throws -> [String: Any] {
        let n = Double(max(1, envelopes))
        var statements: [[String: Any]] = []
        var totalMS = 0.0, totalWAL: Int64 = 0, totalCalls: Int64 = 0, writingCalls: Int64 = 0
        let rows = try await admin.query("""
            SELECT d.datname::text, regexp_replace(s.query, '\\s+', ' ', 'g'), s.calls, s.rows, s.total_exec_time, s.wal_bytes::bigint
            FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
            WHERE d.datname = ANY(\(array: databases))
            ORDER BY s.total_exec_time DESC
            """)
        for row in rows {
            let (database, query, calls, affected, ms, wal) = try row.decode((String, String, Int64, Int64, Double, Int64).self)
            totalMS += ms
            totalWAL += wal
            totalCalls += calls
            if wal > 0 { writingCalls += calls }
            guard statements.count < top else { continue }
            statements.append([
                "database": database, "query": String(query.prefix(160)), "calls": calls, "rows": affected,
                "exec_ms": round1(ms), "exec_us_per_envelope": round1(ms * 1000 / n),
                "rows_per_call": round1(Double(affected) / Double(max(1, calls))),
                "wal_bytes_per_envelope": (Double(wal) / n).rounded(),
            ])
        }
        return [
            "statements": statements, "calls_per_envelope": (Double(totalCalls) / n * 1000).rounded() / 1000,
            // Each call of a statement that wrote WAL is about one writing commit (they run outside explicit transactions, mostly).
            "writing_calls_per_envelope": (Double(writingCalls) / n * 1000).rounded() / 1000,
            "exec_us_per_envelope": round1(totalMS * 1000 / n), "wal_bytes_per_envelope": (Double(totalWAL) / n).rounded(),
            "how": """
                   pg_stat_statements over the phase and its settle: every statement of these databases (the bench's own reads \
                   included), top \(top) by execution time
                   """,
        ]
    }
}
