import MailwakePostgres

/// Token buckets shared by every relay instance: one row of `rate_buckets`
/// per key, taken from atomically (`INSERT … ON CONFLICT DO UPDATE` works on
/// the latest row version under a row lock), so N instances together grant
/// what one would.
///
/// A bucket holds up to `burst` tokens and gains `rate` a second; a row not
/// touched for `burst / rate` seconds is full again and may be deleted.
struct RateBuckets: Sendable {
    let database: PostgresClient

    /// The SQL that takes from bucket rows aliased `r`, given a demand in
    /// `EXCLUDED.requested` and the time in `EXCLUDED.updated_ms`; `rate` and
    /// `burst` are SQL expressions (parameters). Grants what the bucket
    /// holds, up to the demand; `granted` and `tokens` are what is left.
    static func takeSQL(rate: String, burst: String) -> String {
        let available = "LEAST(\(burst), r.tokens + \(rate) * GREATEST(0, EXCLUDED.updated_ms - r.updated_ms) / 1000.0)"
        return """
            ON CONFLICT (bucket) DO UPDATE SET
                granted = LEAST(EXCLUDED.requested, floor(\(available)))::int4,
                tokens = \(available) - LEAST(EXCLUDED.requested, floor(\(available))),
                updated_ms = GREATEST(r.updated_ms, EXCLUDED.updated_ms),
                requested = EXCLUDED.requested
            """
    }

    /// Seconds until a bucket left with `tokens` (< 1) has one again.
    static func retryAfter(tokens: Double, rate: Double) -> Int {
        max(1, Int(((1 - tokens) / rate).rounded(.up)))
    }

    /// Takes one token from `bucket`; nil when granted, else the seconds until one is free.
    func take(_ bucket: String, rate: Double, burst: Double, nowMS: Int64) async throws -> Int? {
        var b = PostgresBindings()
        b.append(bucket)
        b.append(rate)
        b.append(burst)
        b.append(nowMS)
        let row = try await database.query(PostgresQuery(unsafeSQL: """
            INSERT INTO rate_buckets AS r (bucket, tokens, updated_ms, requested, granted)
            VALUES ($1, $3::float8 - LEAST(1, floor($3::float8)), $4, 1, LEAST(1, floor($3::float8))::int4)
            \(Self.takeSQL(rate: "$2::float8", burst: "$3::float8"))
            RETURNING granted, tokens
            """, bindings: b)).single()
        let (granted, tokens) = try row.decode((Int32, Double).self)
        return granted >= 1 ? nil : Self.retryAfter(tokens: tokens, rate: rate)
    }
}
