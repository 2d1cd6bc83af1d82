import MailwakeProtocol
import MailwakeSQLite

extension OutpostStore {
    /// Locks a device's identity and keys for a pairing.
    func insertPairing(_ d: PairedDevice) async throws {
        try await database.transaction { c in
            try self.lockDevice(c, deviceID: d.deviceID, signingKey: d.signingKey, agreementKey: d.agreementKey, now: d.pairedAt)
            _ = try c.execute("""
                INSERT INTO pairings (pairing_id, relay_url, environment, device_id, device_signing_key, device_agreement_key, state,
                    paired_at)
                VALUES (?, ?, ?, ?, ?, ?, 'active', ?)
                """, d.pairingID, d.relayURL, d.environment.rawValue, d.deviceID, d.signingKey, d.agreementKey, d.pairedAt)
        }
    }

    func deletePairing(_ pairingID: String) async throws {
        _ = try await database.execute("DELETE FROM pairings WHERE pairing_id = ?", pairingID)
    }

    /// Every pairing, newest first (unpaired ones stay as history).
    public func pairings(activeOnly: Bool = false) async throws -> [PairedDevice] {
        let rows = try await database.query("""
            SELECT pairing_id, relay_url, environment, device_id, device_signing_key, device_agreement_key, state, paired_at, unpaired_at,
                   live_activities
            FROM pairings \(activeOnly ? "WHERE state = 'active'" : "") ORDER BY paired_at DESC, pairing_id
            """)
        return try rows.map { row in
            PairedDevice(pairingID: try row.get("pairing_id"), deviceID: try row.get("device_id"),
                         signingKey: try row.get("device_signing_key"),
                         agreementKey: try row.get("device_agreement_key"), relayURL: try row.get("relay_url"),
                         environment: PushEnvironment(rawValue: try row.get("environment")) ?? .production,
                         active: (try row.get("state") as String) == "active", pairedAt: try row.get("paired_at"),
                         unpairedAt: try row.get("unpaired_at", as: Int64?.self),
                         liveActivities: PairedDevice.LiveActivities(rawValue: try row.get("live_activities")) ?? .on)
        }
    }

    /// Turns Live Activities on or off for a pairing (`unavailable` when the relay reports no push-to-start token).
    public func setLiveActivities(_ pairingID: String, _ state: PairedDevice.LiveActivities) async throws -> Bool {
        try await database.execute("UPDATE pairings SET live_activities = ? WHERE pairing_id = ?", state.rawValue, pairingID) > 0
    }

    /// Marks a pairing ended; its unfinished deliveries fail.
    func markUnpaired(_ pairingID: String) async throws {
        let now = clock()
        try await database.transaction { c in
            _ = try c.execute("UPDATE pairings SET state = 'unpaired', unpaired_at = ? WHERE pairing_id = ? AND state = 'active'", now,
                              pairingID)
            _ = try c.execute("""
                UPDATE deliveries SET status = 'failed', last_error = 'unpaired', updated_at = ? WHERE pairing_id = ?
                    AND status IN ('pending', 'queued')
                """, now, pairingID)
        }
    }
}
