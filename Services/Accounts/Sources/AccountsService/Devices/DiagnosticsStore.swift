import MailwakePostgres

/// The `delivery_diagnostics` table: what the relays reported of each device's deliveries.
struct DiagnosticsStore: Sendable {
    let database: PostgresClient

    /// Records the relay's batch and drops records older than `retentionSeconds`, in one transaction.
    func record(_ records: [DiagnosticRecord], now: Int64, retentionSeconds: Int64) async throws {
        var b = PostgresBindings()
        b.append(PostgresArray(records.map(\.deviceID)))
        b.append(PostgresArray(records.map(\.pairingID)))
        b.append(PostgresArray(records.map(\.eventID)))
        b.append(PostgresArray(records.map(\.status)))
        b.append(PostgresArray(records.map(\.apnsReason)))
        b.append(PostgresArray(records.map(\.occurredAt)))
        b.append(now)
        try await database.withTransaction { tx in
            try await tx.execute(PostgresQuery(unsafeSQL: """
                INSERT INTO delivery_diagnostics (device_id, pairing_id, event_id, status, apns_reason, occurred_at, recorded_at)
                SELECT device_id, pairing_id, event_id, status, apns_reason, occurred_at, $7
                FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int8[])
                    AS r(device_id, pairing_id, event_id, status, apns_reason, occurred_at)
                """, bindings: b))
            try await tx.execute("DELETE FROM delivery_diagnostics WHERE recorded_at < \(now - retentionSeconds)")
        }
    }

    /// The device's 200 latest records that occurred since `since`, newest first.
    func recent(deviceID: String, since: Int64) async throws -> [DiagnosticRecord] {
        try await database.query("""
            SELECT pairing_id, event_id, status, apns_reason, occurred_at FROM delivery_diagnostics
            WHERE device_id = \(deviceID) AND occurred_at >= \(since) ORDER BY occurred_at DESC LIMIT 200
            """).map { row in
            let (pairing, event, status, reason, at) = try row.decode((String, String, String, String?, Int64).self)
            return DiagnosticRecord(deviceID: deviceID, pairingID: pairing, eventID: event, status: status, apnsReason: reason,
                                    occurredAt: at)
        }
    }
}
