import MailwakeCore
import MailwakePostgres
import MailwakeProtocol

/// The durable delivery queue in PostgreSQL, shared by every relay instance.
///
/// Writes are batched by group commit; claims take due rows with
/// `FOR UPDATE SKIP LOCKED` in a materialized CTE, so instances never block
/// on or double-claim each other's rows. A claim is a lease: a row whose
/// instance died becomes due again when `next_attempt_ms` (the lease end) passes.
final class DeliveryQueue: Sendable {
    static let notifyChannel = "mailwake_relay_queue"

    let database: PostgresClient
    let instance: String
    let leaseMS: Int64
    private let inserts: BatchCommitter<NewDelivery, EnqueueOutcome>
    private let completions: BatchCommitter<DeliveryCompletion, Void>

    /// - Parameters:
    ///   - rate: envelopes a second one outpost may submit (all instances together).
    ///   - burst: envelopes one outpost may submit at once.
    ///   - keepCatchUp: also write each stored envelope to its device's catch-up log (PROTOCOL.md §12).
    init(database: PostgresClient, instance: String, leaseSeconds: Int64, rate: Int, burst: Int, keepCatchUp: Bool = true) {
        self.database = database
        self.instance = instance
        leaseMS = leaseSeconds * 1000
        let lease = leaseSeconds * 1000
        let limit = EnvelopeRate(rate: Double(max(rate, 1)), burst: Double(max(burst, 1)))
        // One intake flush at a time: a second one mostly waited for the first's commit on the same outposts'
        // `rate_buckets` rows, and split the batch in two (more statements and commits an envelope). Measured in
        // docs/relay.md ("One intake flush at a time").
        inserts = BatchCommitter(maxBatch: 256, maxConcurrentFlushes: 1) { items in
            try await Self.insert(items, database: database, instance: instance, leaseMS: lease, limit: limit, keepCatchUp: keepCatchUp)
        }
        completions = BatchCommitter(maxBatch: 512, maxConcurrentFlushes: 1, linger: Self.completionLinger) { items in
            try await Self.complete(items, database: database)
            return items.map { _ in () }
        }
    }

    /// How long an attempt's outcome waits for others before the outcomes' group commit writes it, when no write is
    /// running. Nobody waits for an outcome (the push has gone, the outpost had its 202), so below saturation
    /// batches of several outcomes save the wake-ups of a transaction per outcome; the status endpoint shows
    /// `sending` this much longer. Measured in docs/relay.md ("Outcomes that linger").
    static let completionLinger: Duration = .milliseconds(5)

    /// Stores an accepted envelope durably (returns after the commit).
    func enqueue(_ delivery: NewDelivery) async throws -> EnqueueOutcome {
        try await inserts.submit(delivery)
    }

    /// Stores an accepted envelope durably; `completion` gets the outcome after the commit, on the committing task.
    func enqueue(_ delivery: NewDelivery, then completion: @escaping @Sendable (Result<EnqueueOutcome, any Error>) -> Void) {
        inserts.submit(delivery, then: completion)
    }

    /// Records how an attempt ended (batched with other completions).
    func complete(_ completion: DeliveryCompletion) async throws {
        try await completions.submit(completion)
    }

    /// Records how an attempt ended (batched with other completions); `stored` gets the result after the commit, on
    /// the committing task.
    func complete(_ completion: DeliveryCompletion, then stored: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        completions.submit(completion, then: stored)
    }

    /// The envelope budget of every outpost.
    struct EnvelopeRate: Sendable {
        var rate: Double
        var burst: Double
    }

    /// One statement per batch: envelopes already stored are judged by their
    /// row (duplicate or conflict) without touching the outpost's budget; the
    /// new ones take tokens from the outpost's bucket (`rate_buckets`, shared
    /// by every instance), in submission order, and those granted are stored.
    private static func insert(_ items: [NewDelivery], database: PostgresClient, instance: String, leaseMS: Int64,
                               limit: EnvelopeRate, keepCatchUp: Bool) async throws -> [EnqueueOutcome] {
        // The same event twice in one batch: write the first, judge the rest by it.
        var firstIndex: [String: Int] = [:]
        var unique: [NewDelivery] = []
        for item in items where firstIndex[item.pairingID + "/" + item.eventID] == nil {
            firstIndex[item.pairingID + "/" + item.eventID] = unique.count
            unique.append(item)
        }
        var b = PostgresBindings()
        b.append(PostgresArray(unique.map(\.pairingID)))
        b.append(PostgresArray(unique.map(\.eventID)))
        b.append(PostgresArray(unique.map(\.outpostID)))
        b.append(PostgresArray(unique.map(\.deviceID)))
        b.append(PostgresArray(unique.map(\.kind.rawValue)))
        b.append(PostgresArray(unique.map(\.activityID)))
        b.append(PostgresArray(unique.map(\.activityEvent?.rawValue)))
        b.append(PostgresArray(unique.map { PostgresBytes($0.payload) }))
        b.append(PostgresArray(unique.map { PostgresBytes($0.envelopeHash) }))
        b.append(PostgresArray(unique.map(\.iat)))
        b.append(PostgresArray(unique.map(\.deadline)))
        b.append(PostgresArray(unique.map(\.acceptedMS)))
        b.append(notifyChannel)
        b.append(PostgresArray(unique.map { $0.claimedHere ? "sending" : "queued" }))
        b.append(PostgresArray(unique.map { $0.claimedHere ? $0.acceptedMS + leaseMS : $0.acceptedMS }))
        b.append(PostgresArray(unique.map { $0.claimedHere ? instance : nil }))
        b.append(limit.rate)
        b.append(limit.burst)
        b.append(unique.map(\.acceptedMS).max() ?? 0)
        b.append(PostgresArray(unique.map { PostgresBytes(keepCatchUp ? $0.envelope : []) }))
        b.append(keepCatchUp)
        // pg_notify runs in the statement's transaction: other instances hear
        // of the new rows when they are committed. Buckets are taken in
        // outpost order, so two batches never wait for each other's rows in
        // opposite orders.
        let rows = try await database.query(PostgresQuery(unsafeSQL: """
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
            """, bindings: b))
        struct Written {
            var inserted: Bool
            var hash: [UInt8]?
            var limitedFor: Int?
        }
        var byKey: [String: Written] = [:]
        for row in rows {
            let (pairing, event, inserted, hash, limited, tokens) = try row.decode((String, String, Bool, [UInt8]?, Bool, Double?).self)
            byKey[pairing + "/" + event] = Written(inserted: inserted, hash: hash,
                                                   limitedFor: limited ? RateBuckets.retryAfter(tokens: tokens ?? 0,
                                                                                                rate: limit.rate) : nil)
        }
        // Rows come back for what was inserted, what was stored before or is
        // not fresh, and what the rate refused; a fresh, granted envelope the
        // insert skipped is missing. Missing, or not inserted and not seen:
        // either a row committed by another transaction after this
        // statement's snapshot (read it now), or the pairing is no longer
        // active (nothing to read).
        for item in unique where byKey[item.pairingID + "/" + item.eventID].map({ !$0.inserted && $0.hash == nil && $0.limitedFor == nil })
            ?? true {
            let hash = try await database.query("""
                                                SELECT envelope_hash FROM deliveries WHERE pairing_id = \(item.pairingID) AND event_id \
                                                = \(item.eventID)
                                                """)
                .first?.decode([UInt8].self, at: 0)
            byKey[item.pairingID + "/" + item.eventID] = Written(inserted: false, hash: hash, limitedFor: nil)
        }
        var writtenBy: [String: Int] = [:]
        return items.enumerated().map { index, item in
            let key = item.pairingID + "/" + item.eventID
            let first = unique[firstIndex[key]!]
            let written = byKey[key]!
            if let wait = written.limitedFor { return .rateLimited(retryAfter: wait) }
            if written.inserted, writtenBy[key] == nil {
                writtenBy[key] = index
                return .queued
            }
            guard let stored = written.inserted ? first.envelopeHash : written.hash else { return .pairingInactive }
            return stored == item.envelopeHash ? .duplicate : .conflict
        }
    }

    /// Claims up to `limit` due deliveries for this instance.
    func claim(limit: Int, nowMS: Int64) async throws -> [ClaimedDelivery] {
        let rows = try await database.query("""
            WITH due AS MATERIALIZED (
                SELECT pairing_id, event_id FROM deliveries
                WHERE status IN ('queued', 'sending') AND next_attempt_ms <= \(nowMS)
                ORDER BY next_attempt_ms
                LIMIT \(Int64(limit))
                FOR UPDATE SKIP LOCKED
            )
            UPDATE deliveries d
            SET status = 'sending', attempts = d.attempts + 1, next_attempt_ms = \(nowMS + leaseMS), claimed_by = \(instance),
                updated_ms = \(nowMS)
            FROM due
            WHERE d.pairing_id = due.pairing_id AND d.event_id = due.event_id
            RETURNING d.pairing_id, d.event_id, d.device_id, d.kind, d.activity_id, d.activity_event, d.payload, d.iat, d.deadline_at,
                      d.attempts, d.accepted_ms,
                      EXISTS (SELECT 1 FROM pairings p WHERE p.pairing_id = d.pairing_id AND p.state = 'active'),
                      d.outpost_id, COALESCE((SELECT p.outpost_key FROM pairings p WHERE p.pairing_id = d.pairing_id), ''::bytea)
            """)
        return try rows.map { row in
            let (pairing, event, device, kind, activityID, activityEvent, payload, iat, deadline, attempts, accepted, active, outpostID,
                 outpostKey) =
                try row.decode((String, String, String, String, String?, String?, [UInt8], Int64, Int64, Int32, Int64, Bool, String,
                                [UInt8]).self)
            return ClaimedDelivery(pairingID: pairing, eventID: event, deviceID: device, outpostID: outpostID, outpostKey: outpostKey,
                                   kind: DeliveryKind(rawValue: kind),
                                   activityID: activityID, activityEvent: activityEvent.flatMap(ActivityInfo.Event.init(rawValue:)),
                                   payload: payload, iat: iat, deadline: deadline,
                                   attempts: Int(attempts), acceptedMS: accepted, pairingActive: active)
        }
    }

    private static func complete(_ items: [DeliveryCompletion], database: PostgresClient) async throws {
        var b = PostgresBindings()
        b.append(PostgresArray(items.map(\.pairingID)))
        b.append(PostgresArray(items.map(\.eventID)))
        b.append(PostgresArray(items.map(\.status.rawValue)))
        b.append(PostgresArray(items.map(\.nextAttemptMS)))
        b.append(PostgresArray(items.map { $0.apnsStatus.map(Int32.init) }))
        b.append(PostgresArray(items.map(\.reason?.rawValue)))
        b.append(PostgresArray(items.map(\.atMS)))
        try await database.execute(PostgresQuery(unsafeSQL: completionSQL, bindings: b))
    }

    /// The final statuses of a delivery, as an SQL list: the table's CHECK allows these and `queued` and `sending`.
    ///
    /// Statements say "not finished" as `status NOT IN` this list rather than `status IN ('queued', 'sending')`:
    /// the latter is the predicate of the partial index `deliveries_due`, which keeps an entry for every row that was
    /// ever due until VACUUM removes it, and a bitmap scan of it read every delivery finished since the last vacuum.
    static let finishedStatusesSQL = "('sent', 'displayed', 'failed', 'expired')"

    /// Records a batch of attempt outcomes: `$1`…`$7` are the arrays pairing id, event id, status,
    /// next attempt (ms), APNs status, reason and time (ms), one element per outcome.
    ///
    /// A delivery already finished (another instance re-claimed it after a
    /// lease ran out and finished first) keeps its first outcome. A
    /// finished delivery drops its payload: nothing sends it again, and the
    /// row version this update writes (and its WAL) shrinks by the payload.
    /// An outcome APNs did not answer (the deadline passed before the
    /// retry, the transport failed) keeps the last answer APNs gave.
    ///
    /// "Not finished" is `NOT IN finishedStatusesSQL`, see there. Each row is found by its primary key.
    static let completionSQL = """
        WITH updated AS (
            UPDATE deliveries d
            SET status = u.status, next_attempt_ms = u.next_ms, apns_status = COALESCE(u.apns_status, d.apns_status),
                apns_reason = u.reason,
                updated_ms = u.at_ms, claimed_by = NULL, sent_ms = CASE WHEN u.status = 'sent' THEN u.at_ms ELSE d.sent_ms END,
                payload = CASE WHEN u.status IN ('sent', 'failed', 'expired') THEN ''::bytea ELSE d.payload END
            FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int4[], $6::text[], $7::int8[])
                AS u(pairing_id, event_id, status, next_ms, apns_status, reason, at_ms)
            WHERE d.pairing_id = u.pairing_id AND d.event_id = u.event_id
                AND d.status NOT IN \(finishedStatusesSQL)
            RETURNING d.device_id, d.pairing_id, d.event_id, d.status, d.apns_reason, d.updated_ms
        )
        INSERT INTO diagnostics_outbox (device_id, pairing_id, event_id, status, apns_reason, occurred_at)
        SELECT device_id, pairing_id, event_id, status, apns_reason, updated_ms / 1000 FROM updated
        WHERE status IN ('sent', 'failed', 'expired')
        """
}
