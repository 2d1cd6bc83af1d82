import MailwakeCore
import MailwakePostgres
import MailwakeProtocol

/// Sends finished deliveries' outcomes to accounts' diagnostics in batches of
/// up to 500, from the `diagnostics_outbox` table; rows leave the table only
/// once accounts has them, so an accounts outage delays but loses nothing.
struct DiagnosticsReporter: Service {
    var name: String { "diagnostics-reporter" }
    let database: PostgresClient
    let accounts: AccountsClient
    let metrics: RelayMetrics
    let logger: Logger
    var interval: Duration = .seconds(2)

    func run() async throws {
        while !Task.isCancelled {
            do {
                while try await sendBatch() == 500 {}
            } catch is CancellationError {
                return
            } catch {
                logger.warning("cannot report delivery diagnostics; retrying", ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Sends one batch; returns how many rows it carried.
    func sendBatch() async throws -> Int {
        try await database.withTransaction { tx in
            let rows = try await tx.query("""
                SELECT id, device_id, pairing_id, event_id, status, apns_reason, occurred_at FROM diagnostics_outbox
                ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED
                """)
            guard !rows.isEmpty else { return 0 }
            var ids: [Int64] = []
            var w = JSONWriter(capacity: rows.count * 200)
            w.beginObject()
            w.beginArray("records")
            for row in rows {
                let (id, device, pairing, event, status, reason,
                     at) = try row.decode((Int64, String, String, String, String, String?, Int64).self)
                ids.append(id)
                w.beginObject()
                w.string("device_id", device)
                w.string("pairing_id", pairing)
                w.string("event_id", event)
                w.string("status", status)
                if let reason { w.string("apns_reason", Self.reportedReason(reason)) }
                w.int("occurred_at", at)
                w.endObject()
            }
            w.endArray()
            w.endObject()
            try await accounts.sendDiagnostics(w.bytes)
            try await tx.execute("DELETE FROM diagnostics_outbox WHERE id = ANY(\(array: ids))")
            metrics.diagnosticsSent.increment(by: Int64(ids.count))
            return ids.count
        }
    }

    /// `reason` as accounts takes it: at most 64 UTF-8 bytes and no NUL (the relay's own reasons, such as
    /// `no_device_token`, and APNs' words pass unchanged). Anything else, a row written before the relay kept APNs'
    /// reasons to ASCII words, is sent as "Unknown", so that one row cannot have accounts refuse every batch.
    static func reportedReason(_ reason: String) -> String {
        reason.utf8.count <= 64 && !reason.utf8.contains(0) ? reason : "Unknown"
    }
}
