import MailwakePostgres

/// The `devices` table: registration, updates, deletion and token invalidation of a device.
struct DeviceStore: Sendable {
    let database: PostgresClient

    /// The device's row, deleted or blocked ones included.
    func load(_ id: String) async throws -> DeviceRecord? {
        var bindings = PostgresBindings()
        bindings.append(id)
        let rows = try await database.query(PostgresQuery(unsafeSQL: "SELECT \(DeviceRecord.columns) FROM devices WHERE device_id = $1",
                                                          bindings: bindings))
        return try rows.first.map(DeviceRecord.init(row:))
    }

    /// The SHA-256 of the recovery code the device's deletion answered; nil when it has none.
    func recoveryDigest(of id: String) async throws -> [UInt8]? {
        try await database.query("SELECT recovery_digest FROM devices WHERE device_id = \(id)").first?.decode([UInt8]?.self, at: 0)
    }

    /// Inserts or refreshes the device and opens `session` for it, in one transaction.
    ///
    /// The row changes only when it is a live device, or a deleted one whose
    /// recovery digest is `recoveryDigest`; false (and no session) otherwise.
    func register(_ deviceID: String, _ body: DeviceRegistration, recoveryDigest: [UInt8]?, session: NewSession,
                  now: Int64) async throws -> Bool {
        try await database.withTransaction { tx in
            let changed = try await tx.query("""
                INSERT INTO devices (device_id, signing_key, agreement_key, apns_token, apns_environment, apns_token_updated_at, bundle_id,
                                     app_version, push_to_start_token, created_at, updated_at)
                VALUES (\(deviceID), \(body.signingKey), \(body.agreementKey), \(body.apnsToken), \(body.apnsEnvironment.rawValue), \(now),
                        \(body.bundleID), \(body.appVersion), \(body.pushToStartToken), \(now), \(now))
                ON CONFLICT (device_id) DO UPDATE SET
                  agreement_key = EXCLUDED.agreement_key, apns_token = EXCLUDED.apns_token, apns_environment = EXCLUDED.apns_environment,
                  apns_token_updated_at = EXCLUDED.apns_token_updated_at, bundle_id = EXCLUDED.bundle_id,
                      app_version = EXCLUDED.app_version,
                  push_to_start_token = EXCLUDED.push_to_start_token, updated_at = EXCLUDED.updated_at, deleted_at = NULL,
                      recovery_digest = NULL
                WHERE devices.blocked_at IS NULL AND (devices.deleted_at IS NULL OR devices.recovery_digest = \(recoveryDigest))
                RETURNING 1
                """)
            guard changed.count == 1 else { return false }
            try await DeviceSessionStore.insert(session, deviceID: deviceID, now: now, on: tx)
            return true
        }
    }

    /// Applies the fields of `update` that are set.
    func update(_ deviceID: String, _ update: DeviceUpdate, now: Int64) async throws {
        try await database.execute("""
            UPDATE devices SET
              apns_token = COALESCE(\(update.apnsToken), apns_token),
              apns_environment = COALESCE(\(update.apnsEnvironment?.rawValue), apns_environment),
              apns_token_updated_at = CASE WHEN \(update.apnsToken) IS NULL THEN apns_token_updated_at ELSE \(now) END,
              app_version = COALESCE(\(update.appVersion), app_version),
              push_to_start_token = COALESCE(\(update.pushToStartToken), push_to_start_token),
              updated_at = \(now)
            WHERE device_id = \(deviceID)
            """)
    }

    /// Deletes the device in one transaction: wipes its push tokens and keeps
    /// `recoveryDigest`, revokes its sessions, and unlinks its purchases (a
    /// deleted device no longer holds a place in a purchase's device limit).
    func delete(_ deviceID: String, recoveryDigest: [UInt8], now: Int64) async throws {
        try await database.withTransaction { tx in
            try await tx.execute("""
                UPDATE devices SET deleted_at = \(now), updated_at = \(now), apns_token = '', push_to_start_token = NULL,
                  recovery_digest = \(recoveryDigest)
                WHERE device_id = \(deviceID)
                """)
            try await tx.execute("UPDATE device_sessions SET revoked_at = \(now) WHERE device_id = \(deviceID) AND revoked_at IS NULL")
            try await tx.execute("DELETE FROM purchase_links WHERE device_id = \(deviceID)")
        }
    }

    /// Clears the device's APNs token when it is still `token` and was set no
    /// later than `failedAtMS` (APNs' timestamp); returns whether it was cleared.
    func clearInvalidToken(_ deviceID: String, token: String, failedAtMS: Int64, now: Int64) async throws -> Bool {
        try await database.execute("""
            UPDATE devices SET apns_token = '', updated_at = \(now)
            WHERE device_id = \(deviceID) AND apns_token = \(token) AND apns_token_updated_at * 1000 <= \(failedAtMS)
            """) == 1
    }
}
