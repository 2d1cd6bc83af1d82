import MailwakeCore
import MailwakePostgres
import MailwakeProtocol

/// Sends finished deliveries' outcomes to accounts' diagnostics, at most 500
/// a request, from the outbox the outcomes' statement writes (a row of arrays
/// per statement, `diagnostics_outbox_batches`), whole rows a round. Rows
/// leave the outbox only once accounts has their records, so an accounts
/// outage delays but loses nothing. Rows the previous release wrote to
/// `diagnostics_outbox`, a record each, go first.
struct DiagnosticsReporter: Service {
    var name: String { "diagnostics-reporter" }
    let database: PostgresClient
    let accounts: AccountsClient
    let metrics: RelayMetrics
    let logger: Logger
    var interval: Duration = .seconds(2)

    /// Records accounts takes in one request (`DiagnosticBatch.maxRecords` there).
    static let recordsPerRequest = 500
    /// Outbox rows one round locks at most, an outcomes' statement's each (about 17 records at 2,000 outcomes a
    /// second, 60 at saturation, 512 at most); it sends those that fit in one request.
    static let batchesPerRound = 64

    func run() async throws {
        while !Task.isCancelled {
            do {
                while try await sendRound() {}
            } catch is CancellationError {
                return
            } catch {
                logger.warning("cannot report delivery diagnostics; retrying", ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// One outcome as accounts records it, and the outbox row it came from.
    private struct Record {
        var row: Int64
        var deviceID: String
        var pairingID: String
        var eventID: String
        var status: String
        var reason: String?
        var occurredAt: Int64
    }

    /// Sends one round of records and removes their outbox rows, in one transaction; returns whether more may wait.
    func sendRound() async throws -> Bool {
        try await database.withTransaction { tx in
            let legacy = try await tx.query("""
                SELECT id, device_id, pairing_id, event_id, status, apns_reason, occurred_at FROM diagnostics_outbox
                ORDER BY id LIMIT \(Int64(Self.recordsPerRequest)) FOR UPDATE SKIP LOCKED
                """)
            if !legacy.isEmpty {
                let records = try legacy.map(Self.record)
                try await send(records)
                try await tx.execute("DELETE FROM diagnostics_outbox WHERE id = ANY(\(array: records.map(\.row)))")
                return records.count == Self.recordsPerRequest
            }
            // Whole rows up to one request's records (a row over that alone is sent in several), so that a
            // refused request leaves every row whose records accounts does not have, and no row half sent.
            let locked = try await tx.query("""
                SELECT id, cardinality(event_ids) FROM diagnostics_outbox_batches ORDER BY id
                LIMIT \(Int64(Self.batchesPerRound)) FOR UPDATE SKIP LOCKED
                """).map { try $0.decode((Int64, Int32).self) }
            var rows: [Int64] = []
            var count = 0
            for (id, n) in locked {
                guard rows.isEmpty || count + Int(n) <= Self.recordsPerRequest else { break }
                rows.append(id)
                count += Int(n)
            }
            guard !rows.isEmpty else { return false }
            let records = try await tx.query("""
                SELECT b.id, r.device_id, r.pairing_id, r.event_id, r.status, r.apns_reason, r.occurred_at
                FROM diagnostics_outbox_batches b,
                     unnest(b.device_ids, b.pairing_ids, b.event_ids, b.statuses, b.apns_reasons, b.occurred_at)
                         AS r(device_id, pairing_id, event_id, status, apns_reason, occurred_at)
                WHERE b.id = ANY(\(array: rows))
                """).map(Self.record)
            try await send(records)
            try await tx.execute("DELETE FROM diagnostics_outbox_batches WHERE id = ANY(\(array: rows))")
            return rows.count < locked.count || locked.count == Self.batchesPerRound
        }
    }

    private static func record(_ row: PostgresRow) throws -> Record {
        let (id, device, pairing, event, status, reason, at) = try row.decode((Int64, String, String, String, String, String?, Int64).self)
        return Record(row: id, deviceID: device, pairingID: pairing, eventID: event, status: status, reason: reason, occurredAt: at)
    }

    /// Posts `records` to accounts, `recordsPerRequest` at a time.
    private func send(_ records: [Record]) async throws {
        for start in stride(from: 0, to: records.count, by: Self.recordsPerRequest) {
            let chunk = records[start..<min(start + Self.recordsPerRequest, records.count)]
            var w = JSONWriter(capacity: chunk.count * 200)
            w.beginObject()
            w.beginArray("records")
            for r in chunk {
                w.beginObject()
                w.string("device_id", r.deviceID)
                w.string("pairing_id", r.pairingID)
                w.string("event_id", r.eventID)
                w.string("status", r.status)
                if let reason = r.reason { w.string("apns_reason", Self.reportedReason(reason)) }
                w.int("occurred_at", r.occurredAt)
                w.endObject()
            }
            w.endArray()
            w.endObject()
            try await accounts.sendDiagnostics(w.bytes)
            metrics.diagnosticsSent.increment(by: Int64(chunk.count))
        }
    }

    /// `reason` as accounts takes it: at most 64 UTF-8 bytes and no NUL (the relay's own reasons, such as
    /// `no_device_token`, and APNs' words pass unchanged). Anything else, a row written before the relay kept APNs'
    /// reasons to ASCII words, is sent as "Unknown", so that one row cannot have accounts refuse every batch.
    static func reportedReason(_ reason: String) -> String {
        reason.utf8.count <= 64 && !reason.utf8.contains(0) ? reason : "Unknown"
    }
}
