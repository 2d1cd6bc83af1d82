import MailwakeCrypto
import MailwakePostgres
import MailwakeProtocol

/// The `pairings` table: a pairing's registration, consent, confirmation and end (PROTOCOL.md §9).
struct PairingStore: Sendable {
    let database: PostgresClient

    /// Stores `pairing` as pending; false when its id is taken (this registration retried, or another).
    func insertPending(_ pairing: PairingRecord, now: Int64) async throws -> Bool {
        try await database.execute("""
            INSERT INTO pairings (pairing_id, outpost_id, outpost_key, relay_token_hash, expires_at, state, created_at)
            VALUES (\(pairing.pairingID), \(pairing.outpostID), \(pairing.outpostKey), \(pairing.relayTokenHash), \(pairing.expiresAt),
                'pending', \(now))
            ON CONFLICT (pairing_id) DO NOTHING
            """) == 1
    }

    /// The pairing; nil when `id` is unknown or not a pairing id.
    func load(_ id: String) async throws -> PairingRecord? {
        guard PairingID.isValid(id) else { return nil }
        var bindings = PostgresBindings()
        bindings.append(id)
        return try await database.query(PostgresQuery(unsafeSQL: "SELECT \(PairingRecord.columns) FROM pairings WHERE pairing_id = $1",
                                                      bindings: bindings))
            .first.map(PairingRecord.init(row:))
    }

    /// Records the device's consent (its JSON as submitted) on a pending pairing; false when it is no longer pending.
    func recordConsent(pairingID: String, deviceID: String, consent: [UInt8], now: Int64) async throws -> Bool {
        try await database.execute("""
            UPDATE pairings SET state = 'consented', device_id = \(deviceID), consent = \(consent), consented_at = \(now)
            WHERE pairing_id = \(pairingID) AND state = 'pending'
            """) == 1
    }

    /// Makes a consented pairing active; false when it is no longer consented.
    func activate(pairingID: String, now: Int64) async throws -> Bool {
        try await database.execute("""
            UPDATE pairings SET state = 'active', confirmed_at = \(now) WHERE pairing_id = \(pairingID) AND state = 'consented'
            """) == 1
    }

    /// Ends the pairing, fails its unfinished deliveries (`pairing_ended`) and
    /// drops its device's catch-up envelopes of it, in one transaction;
    /// returns the number of deliveries cancelled.
    func end(pairingID: String, deviceID: String?, endedBy: String, now: Int64, nowMS: Int64) async throws -> Int {
        try await database.withTransaction { tx in
            try await tx.execute("""
                UPDATE pairings SET state = 'ended', ended_at = \(now), ended_by = \(endedBy) WHERE pairing_id = \(pairingID)
                    AND state <> 'ended'
                """)
            var bindings = PostgresBindings()
            bindings.append(pairingID)
            bindings.append(nowMS)
            let cancelled = try await tx.execute(PostgresQuery(unsafeSQL: Self.cancelDeliveriesSQL, bindings: bindings))
            if let deviceID {
                try await tx.execute("DELETE FROM catchup_envelopes WHERE device_id = \(deviceID) AND pairing_id = \(pairingID)")
            }
            return cancelled
        }
    }

    /// Fails the unfinished deliveries of pairing `$1` at `$2` (ms), found through the primary key's pairing prefix.
    static let cancelDeliveriesSQL = """
        UPDATE deliveries SET status = 'failed', apns_reason = 'pairing_ended', updated_ms = $2::int8, claimed_by = NULL,
            payload = ''::bytea
        WHERE pairing_id = $1::text AND status NOT IN \(DeliveryQueue.finishedStatusesSQL)
        """

    /// The device's signing key, from the consent of its most recent pairing (an active one first).
    func deviceSigningKey(of deviceID: String) async throws -> P256.Signing.PublicKey? {
        var bindings = PostgresBindings()
        bindings.append(deviceID)
        let row = try await database.query(PostgresQuery(unsafeSQL: """
            SELECT \(PairingRecord.columns) FROM pairings WHERE device_id = $1 AND consent IS NOT NULL
            ORDER BY (state = 'active') DESC, consented_at DESC NULLS LAST LIMIT 1
            """, bindings: bindings)).first
        return try row.map(PairingRecord.init(row:))?.deviceSigningKey
    }

    /// The key pinned by the outpost's newest active pairing (every pairing of one outpost pins the same key).
    func activeOutpostKey(of outpostID: String) async throws -> [UInt8]? {
        try await database.query("""
            SELECT outpost_key FROM pairings WHERE outpost_id = \(outpostID) AND state = 'active' ORDER BY created_at DESC LIMIT 1
            """).first?.decode([UInt8].self, at: 0)
    }

    /// The number of active pairings (the `/admin` page).
    func activeCount() async throws -> Int64 {
        try await database.query("SELECT count(*) FROM pairings WHERE state = 'active'").single().decode(Int64.self, at: 0)
    }
}
