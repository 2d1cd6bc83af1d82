import MailwakePostgres

/// Reads a device's catch-up log, `catchup_envelopes` (PROTOCOL.md §12).
struct CatchUpStore: Sendable {
    let database: PostgresClient

    /// One page of the log.
    struct Page: Sendable {
        /// The envelopes' JSON as accepted, oldest first.
        var envelopes: [[UInt8]]
        /// Whether more envelopes follow the page.
        var more: Bool
    }

    /// Kept envelopes of active pairings, in acceptance order, after `after`
    /// (an event id not, or no longer, in the log reads from the oldest kept),
    /// accepted since `sinceMS` and among the device's newest `keep`
    /// (whatever pruning has not reached yet); empty when `keep` is 0.
    func page(deviceID: String, after: String?, limit: Int, sinceMS: Int64, keep: Int) async throws -> Page {
        var b = PostgresBindings()
        b.append(deviceID)
        b.append(after ?? "")
        b.append(sinceMS)
        b.append(Int64(max(keep, 1) - 1))
        b.append(Int64(limit + 1))
        b.append(keep > 0)
        let rows = try await database.query(PostgresQuery(unsafeSQL: """
            WITH floor AS (
                SELECT GREATEST(
                    COALESCE((SELECT max(seq) FROM catchup_envelopes WHERE device_id = $1 AND event_id = $2), 0),
                    COALESCE((SELECT seq - 1 FROM catchup_envelopes WHERE device_id = $1 ORDER BY seq DESC OFFSET $4 LIMIT 1), 0)) AS seq
            )
            SELECT c.envelope FROM catchup_envelopes c, floor f
            WHERE $6::bool AND c.device_id = $1 AND c.seq > f.seq AND c.accepted_ms >= $3
              AND EXISTS (SELECT 1 FROM pairings p WHERE p.pairing_id = c.pairing_id AND p.state = 'active' AND p.device_id = $1)
            ORDER BY c.seq
            LIMIT $5
            """, bindings: b))
        let envelopes = try rows.prefix(limit).map { try $0.decode([UInt8].self, at: 0) }
        return Page(envelopes: envelopes, more: rows.count > limit)
    }
}
