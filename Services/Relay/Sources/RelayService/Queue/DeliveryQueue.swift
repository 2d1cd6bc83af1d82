import MailwakeCore
import MailwakePostgres

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

    init(database: PostgresClient, instance: String, leaseSeconds: Int64) {
        self.database = database
        self.instance = instance
        leaseMS = leaseSeconds * 1000
        let lease = leaseSeconds * 1000
        inserts = BatchCommitter(maxBatch: 256, maxConcurrentFlushes: 2) { items in
            try await Self.insert(items, database: database, instance: instance, leaseMS: lease)
        }
        completions = BatchCommitter(maxBatch: 512, maxConcurrentFlushes: 1) { items in
            try await Self.complete(items, database: database)
            return items.map { _ in () }
        }
    }

    /// Stores an accepted envelope durably (returns after the commit).
    func enqueue(_ delivery: NewDelivery) async throws -> EnqueueOutcome {
        try await inserts.submit(delivery)
    }

    /// Records how an attempt ended (batched with other completions).
    func complete(_ completion: DeliveryCompletion) async throws {
        try await completions.submit(completion)
    }

    private static func insert(_ items: [NewDelivery], database: PostgresClient, instance: String, leaseMS: Int64) async throws -> [EnqueueOutcome] {
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
        b.append(PostgresArray(unique.map(\.kind)))
        b.append(PostgresArray(unique.map(\.activityID)))
        b.append(PostgresArray(unique.map(\.activityEvent)))
        b.append(PostgresArray(unique.map { PostgresBytes($0.payload) }))
        b.append(PostgresArray(unique.map { PostgresBytes($0.envelopeHash) }))
        b.append(PostgresArray(unique.map(\.iat)))
        b.append(PostgresArray(unique.map(\.deadline)))
        b.append(PostgresArray(unique.map(\.acceptedMS)))
        b.append(notifyChannel)
        b.append(PostgresArray(unique.map { $0.claimedHere ? "sending" : "queued" }))
        b.append(PostgresArray(unique.map { $0.claimedHere ? $0.acceptedMS + leaseMS : $0.acceptedMS }))
        b.append(PostgresArray(unique.map { $0.claimedHere ? instance : nil }))
        // pg_notify runs in the statement's transaction: other instances hear
        // of the new rows when they are committed.
        let rows = try await database.query(PostgresQuery(unsafeSQL: """
            WITH input AS (
                SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                                     $8::bytea[], $9::bytea[], $10::int8[], $11::int8[], $12::int8[], $14::text[], $15::int8[], $16::text[])
                    AS t(pairing_id, event_id, outpost_id, device_id, kind, activity_id, activity_event, payload, envelope_hash, iat, deadline_at,
                         accepted_ms, status, next_attempt_ms, claimed_by)
            ), inserted AS (
                INSERT INTO deliveries (pairing_id, event_id, outpost_id, device_id, kind, activity_id, activity_event, payload, envelope_hash,
                                        iat, deadline_at, status, attempts, next_attempt_ms, accepted_ms, updated_ms, claimed_by)
                SELECT pairing_id, event_id, outpost_id, device_id, kind, activity_id, activity_event, payload, envelope_hash,
                       iat, deadline_at, status, CASE WHEN status = 'sending' THEN 1 ELSE 0 END, next_attempt_ms, accepted_ms, accepted_ms, claimed_by
                FROM input
                WHERE EXISTS (SELECT 1 FROM pairings p WHERE p.pairing_id = input.pairing_id AND p.state = 'active')
                ON CONFLICT (pairing_id, event_id) DO NOTHING
                RETURNING pairing_id, event_id, status
            ), notified AS (
                SELECT pg_notify($13, '') WHERE EXISTS (SELECT 1 FROM inserted WHERE status = 'queued')
            )
            SELECT i.pairing_id, i.event_id, (n.event_id IS NOT NULL), d.envelope_hash
            FROM input i
            LEFT JOIN inserted n ON n.pairing_id = i.pairing_id AND n.event_id = i.event_id
            LEFT JOIN deliveries d ON n.event_id IS NULL AND d.pairing_id = i.pairing_id AND d.event_id = i.event_id
            LEFT JOIN notified ON true
            """, bindings: b))
        var byKey: [String: (inserted: Bool, hash: [UInt8]?)] = [:]
        for row in rows {
            let (pairing, event, inserted, hash) = try row.decode((String, String, Bool, [UInt8]?).self)
            byKey[pairing + "/" + event] = (inserted, hash)
        }
        // Not inserted and not seen: either a row committed by another
        // transaction after this statement's snapshot (read it now), or the
        // pairing is no longer active (nothing to read).
        for item in unique where byKey[item.pairingID + "/" + item.eventID].map({ !$0.inserted && $0.hash == nil }) ?? true {
            let hash = try await database.query("SELECT envelope_hash FROM deliveries WHERE pairing_id = \(item.pairingID) AND event_id = \(item.eventID)")
                .first?.decode([UInt8].self, at: 0)
            byKey[item.pairingID + "/" + item.eventID] = (false, hash)
        }
        var writtenBy: [String: Int] = [:]
        return items.enumerated().map { index, item in
            let key = item.pairingID + "/" + item.eventID
            let first = unique[firstIndex[key]!]
            let written = byKey[key]!
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
            SET status = 'sending', attempts = d.attempts + 1, next_attempt_ms = \(nowMS + leaseMS), claimed_by = \(instance), updated_ms = \(nowMS)
            FROM due
            WHERE d.pairing_id = due.pairing_id AND d.event_id = due.event_id
            RETURNING d.pairing_id, d.event_id, d.device_id, d.kind, d.activity_id, d.activity_event, d.payload, d.iat, d.deadline_at,
                      d.attempts, d.accepted_ms,
                      EXISTS (SELECT 1 FROM pairings p WHERE p.pairing_id = d.pairing_id AND p.state = 'active')
            """)
        return try rows.map { row in
            let (pairing, event, device, kind, activityID, activityEvent, payload, iat, deadline, attempts, accepted, active) =
                try row.decode((String, String, String, String, String?, String?, [UInt8], Int64, Int64, Int32, Int64, Bool).self)
            return ClaimedDelivery(pairingID: pairing, eventID: event, deviceID: device, kind: kind, activityID: activityID, activityEvent: activityEvent,
                                   payload: payload, iat: iat, deadline: deadline, attempts: Int(attempts), acceptedMS: accepted, pairingActive: active)
        }
    }

    private static func complete(_ items: [DeliveryCompletion], database: PostgresClient) async throws {
        var b = PostgresBindings()
        b.append(PostgresArray(items.map(\.pairingID)))
        b.append(PostgresArray(items.map(\.eventID)))
        b.append(PostgresArray(items.map(\.status.rawValue)))
        b.append(PostgresArray(items.map(\.nextAttemptMS)))
        b.append(PostgresArray(items.map { $0.apnsStatus.map(Int32.init) }))
        b.append(PostgresArray(items.map(\.reason)))
        b.append(PostgresArray(items.map(\.atMS)))
        // A delivery already finished (another instance re-claimed it after a
        // lease ran out and finished first) keeps its first outcome. A
        // finished delivery drops its payload: nothing sends it again, and the
        // row version this update writes (and its WAL) shrinks by the payload.
        // An outcome APNs did not answer (the deadline passed before the
        // retry, the transport failed) keeps the last answer APNs gave.
        try await database.execute(PostgresQuery(unsafeSQL: """
            WITH updated AS (
                UPDATE deliveries d
                SET status = u.status, next_attempt_ms = u.next_ms, apns_status = COALESCE(u.apns_status, d.apns_status), apns_reason = u.reason,
                    updated_ms = u.at_ms, claimed_by = NULL,
                    payload = CASE WHEN u.status IN ('sent', 'failed', 'expired') THEN ''::bytea ELSE d.payload END
                FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int4[], $6::text[], $7::int8[])
                    AS u(pairing_id, event_id, status, next_ms, apns_status, reason, at_ms)
                WHERE d.pairing_id = u.pairing_id AND d.event_id = u.event_id AND d.status IN ('queued', 'sending')
                RETURNING d.device_id, d.pairing_id, d.event_id, d.status, d.apns_reason, d.updated_ms
            )
            INSERT INTO diagnostics_outbox (device_id, pairing_id, event_id, status, apns_reason, occurred_at)
            SELECT device_id, pairing_id, event_id, status, apns_reason, updated_ms / 1000 FROM updated
            WHERE status IN ('sent', 'failed', 'expired')
            """, bindings: b))
    }

    /// Ends every unfinished delivery of a pairing that ended.
    @discardableResult
    func failUnfinished(pairingID: String, reason: String, nowMS: Int64) async throws -> Int {
        try await database.execute("""
            UPDATE deliveries SET status = 'failed', apns_reason = \(reason), updated_ms = \(nowMS), claimed_by = NULL, payload = ''::bytea
            WHERE pairing_id = \(pairingID) AND status IN ('queued', 'sending')
            """)
    }
}
