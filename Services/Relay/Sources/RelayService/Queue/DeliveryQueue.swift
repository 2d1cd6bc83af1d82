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
        // Both commits run without a task: the statement is sent from the thread that submits (or where the last
        // flush ended), and the outcomes are given on the connection's thread. Measured in docs/relay.md ("Commits
        // without a task").
        inserts = BatchCommitter(maxBatch: 256, maxConcurrentFlushes: 1) { items, done in
            Self.insert(IntakeBatch(items, limit: limit), database: database, instance: instance, leaseMS: lease,
                        keepCatchUp: keepCatchUp, then: done)
        }
        completions = BatchCommitter(maxBatch: 512, maxConcurrentFlushes: 1, linger: Self.completionLinger) { items, done in
            database.query(Self.completionStatement(items)) { result in done(result.map { _ in items.map { _ in () } }) }
        }
    }

    /// Stores `batch` in one statement; `done` gets each item's outcome, on the connection's thread (on a task when
    /// rows committed meanwhile by another instance must be read).
    private static func insert(_ batch: IntakeBatch, database: PostgresClient, instance: String, leaseMS: Int64, keepCatchUp: Bool,
                               then done: @escaping @Sendable (Result<[EnqueueOutcome], any Error>) -> Void) {
        database.query(batch.statement(instance: instance, leaseMS: leaseMS, keepCatchUp: keepCatchUp)) { result in
            let seen: [IntakeBatch.EventKey: IntakeBatch.Written]
            do { seen = try batch.written(from: result.get()) } catch {
                done(.failure(error))
                return
            }
            let unseen = batch.unseen(seen)
            guard !unseen.isEmpty else {
                done(.success(batch.outcomes(seen)))
                return
            }
            Task {
                done(await Result {
                    var all = seen
                    try await batch.read(unseen, into: &all, database: database)
                    return batch.outcomes(all)
                })
            }
        }
    }

    /// How long an attempt's outcome waits for others before the outcomes' group commit writes it, when no write is
    /// running. Nobody waits for an outcome (the push has gone, the outpost had its 202), so below saturation
    /// batches of several outcomes save the wake-ups of a transaction per outcome; the status endpoint shows
    /// `sending` this much longer. Measured in docs/relay.md ("Outcomes that linger").
    static let completionLinger: Duration = .milliseconds(20)

    /// Stores an accepted envelope durably (returns after the commit).
    func enqueue(_ delivery: NewDelivery) async throws -> EnqueueOutcome {
        try await inserts.submit(delivery)
    }

    /// Stores an accepted envelope durably; `completion` gets the outcome after the commit, on the connection's thread
    /// (it must not block).
    func enqueue(_ delivery: NewDelivery, then completion: @escaping @Sendable (Result<EnqueueOutcome, any Error>) -> Void) {
        inserts.submit(delivery, then: completion)
    }

    /// Records how an attempt ended (batched with other completions).
    func complete(_ completion: DeliveryCompletion) async throws {
        try await completions.submit(completion)
    }

    /// Records how an attempt ended (batched with other completions); `stored` gets the result after the commit, on
    /// the connection's thread (it must not block).
    func complete(_ completion: DeliveryCompletion, then stored: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        completions.submit(completion, then: stored)
    }

    /// The envelope budget of every outpost.
    struct EnvelopeRate: Sendable {
        var rate: Double
        var burst: Double
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

    private static func completionStatement(_ items: [DeliveryCompletion]) -> PostgresQuery {
        var b = PostgresBindings()
        // Per outcome: seven length words, two ids, a status and a reason, three numbers; 20 per array header.
        b.reserveCapacity(parameters: 7, bytes: 7 * 20 + items.count * (7 * 4 + 2 * 22 + 40 + 3 * 8))
        b.append(PostgresArray(items) { $0.pairingID })
        b.append(PostgresArray(items) { $0.eventID })
        b.append(PostgresArray(items) { $0.status.rawValue })
        b.append(PostgresArray(items) { $0.nextAttemptMS })
        b.append(PostgresArray(items) { $0.apnsStatus.map(Int32.init) })
        b.append(PostgresArray(items) { $0.reason?.rawValue })
        b.append(PostgresArray(items) { $0.atMS })
        return PostgresQuery(unsafeSQL: completionSQL, bindings: b)
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
    /// retry, the transport failed) keeps the last answer APNs gave. The
    /// final outcomes go to accounts' diagnostics as one outbox row, the
    /// arrays of one aggregate, so their elements line up.
    ///
    /// "Not finished" is `NOT IN finishedStatusesSQL`, see there. Each row is found by its primary key, in key order (the
    /// order a pairing's end and a receipts request lock them in, so none of them waits for another in a cycle).
    static let completionSQL = """
        WITH updated AS (
            UPDATE deliveries d
            SET status = u.status, next_attempt_ms = u.next_ms, apns_status = COALESCE(u.apns_status, d.apns_status),
                apns_reason = u.reason,
                updated_ms = u.at_ms, claimed_by = NULL, sent_ms = CASE WHEN u.status = 'sent' THEN u.at_ms ELSE d.sent_ms END,
                payload = CASE WHEN u.status IN ('sent', 'failed', 'expired') THEN ''::bytea ELSE d.payload END
            FROM (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int4[], $6::text[], $7::int8[])
                      AS u(pairing_id, event_id, status, next_ms, apns_status, reason, at_ms)
                  ORDER BY pairing_id, event_id) u
            WHERE d.pairing_id = u.pairing_id AND d.event_id = u.event_id
                AND d.status NOT IN \(finishedStatusesSQL)
            RETURNING d.device_id, d.pairing_id, d.event_id, d.status, d.apns_reason, d.updated_ms
        )
        INSERT INTO diagnostics_outbox_batches (device_ids, pairing_ids, event_ids, statuses, apns_reasons, occurred_at)
        SELECT array_agg(device_id), array_agg(pairing_id), array_agg(event_id), array_agg(status), array_agg(apns_reason),
               array_agg(updated_ms / 1000)
        FROM updated
        WHERE status IN ('sent', 'failed', 'expired')
        HAVING count(*) > 0
        """
}
