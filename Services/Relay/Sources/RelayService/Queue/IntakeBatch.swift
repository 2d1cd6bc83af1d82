import MailwakePostgres

/// One batch of the intake's group commit: one statement stores it. Envelopes already stored are judged by their row
/// (duplicate or conflict) without touching the outpost's budget; the new ones take tokens from the outpost's bucket
/// (`rate_buckets`, shared by every instance), in submission order, and those granted are stored.
struct IntakeBatch: Sendable {
    /// What the statement says of one envelope.
    struct Written: Sendable {
        var inserted: Bool
        var hash: [UInt8]?
        var limitedFor: Int?
    }

    /// One event of one pairing: what the batch and the statement's rows are matched by.
    struct EventKey: Hashable, Sendable {
        let pairingID: String
        let eventID: String
    }

    let items: [NewDelivery]
    let limit: DeliveryQueue.EnvelopeRate
    /// The batch without a second copy of an event: the first is written, the rest are judged by it.
    private let unique: [NewDelivery]
    private let firstIndex: [EventKey: Int]

    init(_ items: [NewDelivery], limit: DeliveryQueue.EnvelopeRate) {
        var firstIndex: [EventKey: Int] = [:]
        var unique: [NewDelivery] = []
        for item in items where firstIndex[Self.key(item)] == nil {
            firstIndex[Self.key(item)] = unique.count
            unique.append(item)
        }
        self.items = items
        self.limit = limit
        self.unique = unique
        self.firstIndex = firstIndex
    }

    private static func key(_ item: NewDelivery) -> EventKey { EventKey(pairingID: item.pairingID, eventID: item.eventID) }

    /// The statement that stores the batch, charges the outposts' buckets and writes the catch-up log.
    ///
    /// - Parameters:
    ///   - instance: this relay instance, which claims the deliveries it hands to its own worker.
    ///   - leaseMS: how long such a claim lasts.
    ///   - keepCatchUp: also write each stored envelope to its device's catch-up log (PROTOCOL.md §12).
    func statement(instance: String, leaseMS: Int64, keepCatchUp: Bool) -> PostgresQuery {
        var b = PostgresBindings()
        // The values' bytes: payloads, envelopes and hashes, plus about 300 an envelope for its ids, numbers and the
        // arrays' length words; 24 a parameter for the arrays' headers and the scalars.
        let bytes = unique.reduce(21 * 24) { sum, item in
            sum + 300 + item.payload.count + item.envelopeHash.count + (keepCatchUp ? item.envelope.count : 0)
        }
        b.reserveCapacity(parameters: 21, bytes: bytes)
        b.append(PostgresArray(unique) { $0.pairingID })
        b.append(PostgresArray(unique) { $0.eventID })
        b.append(PostgresArray(unique) { $0.outpostID })
        b.append(PostgresArray(unique) { $0.deviceID })
        b.append(PostgresArray(unique) { $0.kind.rawValue })
        b.append(PostgresArray(unique) { $0.activityID })
        b.append(PostgresArray(unique) { $0.activityEvent?.rawValue })
        b.append(PostgresArray(unique) { PostgresBytes($0.payload) })
        b.append(PostgresArray(unique) { PostgresBytes($0.envelopeHash) })
        b.append(PostgresArray(unique) { $0.iat })
        b.append(PostgresArray(unique) { $0.deadline })
        b.append(PostgresArray(unique) { $0.acceptedMS })
        b.append(DeliveryQueue.notifyChannel)
        b.append(PostgresArray(unique) { $0.claimedHere ? "sending" : "queued" })
        b.append(PostgresArray(unique) { $0.claimedHere ? $0.acceptedMS + leaseMS : $0.acceptedMS })
        b.append(PostgresArray(unique) { $0.claimedHere ? instance : nil })
        b.append(limit.rate)
        b.append(limit.burst)
        b.append(unique.lazy.map(\.acceptedMS).max() ?? 0)
        b.append(PostgresArray(unique) { PostgresBytes(keepCatchUp ? $0.envelope : []) })
        b.append(keepCatchUp)
        return PostgresQuery(unsafeSQL: Self.sql, bindings: b)
    }

    /// The statement's text, built once: every batch shares one string, which the prepared-statement cache
    /// recognises by its storage instead of comparing its kilobytes with the cached text's.
    ///
    /// pg_notify runs in the statement's transaction: other instances hear of the new rows when they are committed.
    /// Buckets are taken in outpost order, so two batches never wait for each other's rows in opposite orders.
    private static let sql = """
        WITH input AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                                 $8::bytea[], $9::bytea[], $10::int8[], $11::int8[], $12::int8[], $14::text[], $15::int8[],
                                     $16::text[],
                                 $20::bytea[])
                WITH ORDINALITY
                AS t(pairing_id, event_id, outpost_id, device_id, kind, activity_id, activity_event, payload, envelope_hash, iat,
                    deadline_at,
                     accepted_ms, status, next_attempt_ms, claimed_by, envelope, ord)
        ), looked AS (
            SELECT i.*, d.envelope_hash AS stored_hash,
                   (d.pairing_id IS NULL AND EXISTS (SELECT 1 FROM pairings p WHERE p.pairing_id = i.pairing_id
                       AND p.state = 'active')) AS fresh
            FROM input i
            LEFT JOIN deliveries d ON d.pairing_id = i.pairing_id AND d.event_id = i.event_id
        ), ranks AS (
            -- Ranked on narrow rows, looked up by ordinality (no join).
            SELECT array_agg(rank ORDER BY ord) AS of FROM (
                SELECT ord, row_number() OVER (PARTITION BY outpost_id, fresh ORDER BY ord) AS rank FROM looked) x
        ), ranked AS (
            SELECT l.*, ranks.of[l.ord::int4] AS rank FROM looked l, ranks
        ), demand AS (
            SELECT outpost_id, count(*)::int4 AS n FROM ranked WHERE fresh GROUP BY outpost_id
        ), charged AS (
            INSERT INTO rate_buckets AS r (bucket, tokens, updated_ms, requested, granted)
            SELECT 'envelopes/' || outpost_id, $18::float8 - LEAST(n, floor($18::float8)), $19::int8, n, LEAST(n,
                floor($18::float8))::int4
            FROM demand ORDER BY outpost_id
            \(RateBuckets.takeSQL(rate: "$17::float8", burst: "$18::float8"))
            RETURNING substr(bucket, 11) AS outpost_id, granted, tokens
        ), inserted AS (
            INSERT INTO deliveries (pairing_id, event_id, outpost_id, device_id, kind, activity_id, activity_event, payload,
                envelope_hash,
                                    iat, deadline_at, status, attempts, next_attempt_ms, accepted_ms, updated_ms, claimed_by)
            SELECT f.pairing_id, f.event_id, f.outpost_id, f.device_id, f.kind, f.activity_id, f.activity_event, f.payload,
                f.envelope_hash,
                   f.iat, f.deadline_at, f.status, CASE WHEN f.status = 'sending' THEN 1 ELSE 0 END, f.next_attempt_ms, f.accepted_ms,
                   f.accepted_ms, f.claimed_by
            FROM ranked f JOIN charged c ON c.outpost_id = f.outpost_id
            WHERE f.fresh AND f.rank <= c.granted
            ON CONFLICT (pairing_id, event_id) DO NOTHING
            RETURNING pairing_id, event_id, status
        ), logged AS (
            -- The catch-up log (PROTOCOL.md §12), in the same statement and
            -- transaction: exactly the deliveries stored now, in submission order.
            INSERT INTO catchup_envelopes (device_id, pairing_id, event_id, accepted_ms, envelope)
            SELECT i.device_id, i.pairing_id, i.event_id, i.accepted_ms, i.envelope
            FROM inserted n JOIN input i ON i.pairing_id = n.pairing_id AND i.event_id = n.event_id
            WHERE $21::bool
            ORDER BY i.ord
        ), notified AS (
            SELECT pg_notify($13, '') WHERE EXISTS (SELECT 1 FROM inserted WHERE status = 'queued')
        )
        SELECT n.pairing_id, n.event_id, true, NULL::bytea, false, NULL::float8 FROM inserted n LEFT JOIN notified ON true
        UNION ALL
        SELECT i.pairing_id, i.event_id, false, i.stored_hash, i.fresh, c.tokens
        FROM ranked i LEFT JOIN charged c ON c.outpost_id = i.outpost_id
        WHERE NOT i.fresh OR i.rank > c.granted
        """

    /// What the statement's rows say of each envelope; those it does not say are missing.
    func written(from rows: PostgresRows) throws -> [EventKey: Written] {
        var byKey: [EventKey: Written] = [:]
        for row in rows {
            let (pairing, event, inserted, hash, limited, tokens) = try row.decode((String, String, Bool, [UInt8]?, Bool, Double?).self)
            let limitedFor = limited ? RateBuckets.retryAfter(tokens: tokens ?? 0, rate: limit.rate) : nil
            byKey[EventKey(pairingID: pairing, eventID: event)] = Written(inserted: inserted, hash: hash, limitedFor: limitedFor)
        }
        return byKey
    }

    /// Envelopes whose stored row must be read after the statement.
    ///
    /// Rows come back for what was inserted, what was stored before or is not fresh, and what the rate refused; a
    /// fresh, granted envelope the insert skipped is missing. Missing, or not inserted and not seen: either a row
    /// committed by another transaction after this statement's snapshot (read it now), or the pairing is no longer
    /// active (nothing to read).
    func unseen(_ written: [EventKey: Written]) -> [NewDelivery] {
        unique.filter { item in written[Self.key(item)].map { !$0.inserted && $0.hash == nil && $0.limitedFor == nil } ?? true }
    }

    /// Reads the stored rows of `unseen` (what `unseen(_:)` found) into `written`.
    func read(_ unseen: [NewDelivery], into written: inout [EventKey: Written], database: PostgresClient) async throws {
        for item in unseen {
            let hash = try await database.query("""
                                                SELECT envelope_hash FROM deliveries WHERE pairing_id = \(item.pairingID) AND event_id \
                                                = \(item.eventID)
                                                """)
                .first?.decode([UInt8].self, at: 0)
            written[Self.key(item)] = Written(inserted: false, hash: hash, limitedFor: nil)
        }
    }

    /// Each item's outcome, in order, once `written` says every envelope.
    func outcomes(_ written: [EventKey: Written]) -> [EnqueueOutcome] {
        var writtenBy: [EventKey: Int] = [:]
        return items.enumerated().map { index, item in
            let key = Self.key(item)
            let first = unique[firstIndex[key]!]
            let written = written[key]!
            if let wait = written.limitedFor { return .rateLimited(retryAfter: wait) }
            if written.inserted, writtenBy[key] == nil {
                writtenBy[key] = index
                return .queued
            }
            guard let stored = written.inserted ? first.envelopeHash : written.hash else { return .pairingInactive }
            return stored == item.envelopeHash ? .duplicate : .conflict
        }
    }
}
