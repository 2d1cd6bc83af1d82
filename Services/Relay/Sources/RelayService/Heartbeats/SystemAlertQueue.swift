import MailwakeCrypto
import MailwakePostgres
import MailwakeProtocol

/// Queues relay-authored alerts in the deliveries queue, inside the caller's
/// transaction (the one that records the transition), so an alert is stored
/// exactly when its transition commits.
enum SystemAlertQueue {
    /// Queues `alert` once for every device with an active pairing with its
    /// outpost; returns the number queued.
    @discardableResult
    static func queue(_ alert: SystemAlert, on connection: PostgresConnection, nowMS: Int64, maxAge: Int64) async throws -> Int {
        // One alert per device: a device paired twice with the outpost gets
        // it on its most recently confirmed pairing.
        let targets = try await connection.query("""
            SELECT DISTINCT ON (device_id) pairing_id, device_id FROM pairings
            WHERE outpost_id = \(alert.outpostID) AND state = 'active' AND device_id IS NOT NULL
            ORDER BY device_id, confirmed_at DESC NULLS LAST
            """).map { try $0.decode((String, String).self) }
        guard !targets.isEmpty else { return 0 }
        let payload = alert.payload
        let now = nowMS / 1000
        var b = PostgresBindings()
        b.append(PostgresArray(targets.map { $0.0 }))
        b.append(PostgresArray(try targets.map { _ in try EventID.generate() }))
        b.append(PostgresArray(targets.map { $0.1 }))
        b.append(alert.outpostID)
        b.append(DeliveryKind.systemAlert.rawValue)
        b.append(PostgresBytes(payload))
        b.append(PostgresBytes(SHA256.hash(payload).bytes))
        b.append(now)
        b.append(now + maxAge)
        b.append(nowMS)
        b.append(DeliveryQueue.notifyChannel)
        _ = try await connection.query(PostgresQuery(unsafeSQL: """
            WITH inserted AS (
                INSERT INTO deliveries (pairing_id, event_id, outpost_id, device_id, kind, payload, envelope_hash, iat, deadline_at,
                    status,
                                        attempts, next_attempt_ms, accepted_ms, updated_ms)
                SELECT t.pairing_id, t.event_id, $4, t.device_id, $5, $6, $7, $8, $9, 'queued', 0, $10, $10, $10
                FROM unnest($1::text[], $2::text[], $3::text[]) AS t(pairing_id, event_id, device_id)
                RETURNING 1
            )
            SELECT pg_notify($11, '') FROM (SELECT count(*) AS n FROM inserted) c WHERE c.n > 0
            """, bindings: b))
        return targets.count
    }
}
