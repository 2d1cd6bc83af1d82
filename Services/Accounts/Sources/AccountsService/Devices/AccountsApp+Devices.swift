import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol

extension AccountsApp {
    func addDeviceRoutes(to router: inout Router) {
        router.post("/v1/devices") { [self] request, context in try await registerDevice(request, context) }
        router.patch("/v1/devices/{id}") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let update = try request.decodeJSON(DeviceUpdate.self)
            let now = clock()
            try await database.execute("""
                UPDATE devices SET
                  apns_token = COALESCE(\(update.apnsToken), apns_token),
                  apns_environment = COALESCE(\(update.apnsEnvironment?.rawValue), apns_environment),
                  apns_token_updated_at = CASE WHEN \(update.apnsToken) IS NULL THEN apns_token_updated_at ELSE \(now) END,
                  app_version = COALESCE(\(update.appVersion), app_version),
                  push_to_start_token = COALESCE(\(update.pushToStartToken), push_to_start_token),
                  updated_at = \(now)
                WHERE device_id = \(device.deviceID)
                """)
            return try .json(DeviceSummary(try await loadDevice(device.deviceID)!))
        }
        router.delete("/v1/devices/{id}") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let now = clock()
            // The App keeps this code to restore the device later (POST /v1/devices with recovery_code):
            // a key copied before the deletion does not bring the device back without it.
            let recoveryCode = Base64URL.encode(try SecureRandom.bytes(32))
            try await database.withTransaction { tx in
                try await tx.execute("""
                    UPDATE devices SET deleted_at = \(now), updated_at = \(now), apns_token = '', push_to_start_token = NULL,
                      recovery_digest = \(SHA256.hash(Array(recoveryCode.utf8)).bytes)
                    WHERE device_id = \(device.deviceID)
                    """)
                try await tx.execute("UPDATE device_sessions SET revoked_at = \(now) WHERE device_id = \(device.deviceID) AND revoked_at IS NULL")
                // A deleted device no longer holds a place in a purchase's device limit.
                try await tx.execute("DELETE FROM purchase_links WHERE device_id = \(device.deviceID)")
            }
            context.logger.info("device deleted", ["device_id": .string(device.deviceID)])
            return try .json(DeviceDeleted(deviceID: device.deviceID, recoveryCode: recoveryCode))
        }
        router.post("/v1/devices/{id}/live-activity-tokens") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let body = try request.decodeJSON(LiveActivityTokenRegistration.self)
            try await database.execute("""
                INSERT INTO live_activity_tokens (device_id, activity_id, token, updated_at) VALUES (\(device.deviceID), \(body.activityID), \(body.token), \(clock()))
                ON CONFLICT (device_id, activity_id) DO UPDATE SET token = EXCLUDED.token, updated_at = EXCLUDED.updated_at
                """)
            return .empty(.noContent)
        }
        router.get("/v1/devices/{id}/sessions") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let rows = try await database.query("""
                SELECT session_id, created_at, last_seen_at, app_version, client_address, revoked_at FROM device_sessions
                WHERE device_id = \(device.deviceID) ORDER BY last_seen_at DESC LIMIT 100
                """)
            let sessions = try rows.map { row in
                let (id, created, seen, version, address, revoked) = try row.decode((String, Int64, Int64, String, String, Int64?).self)
                return SessionSummary(sessionID: id, createdAt: created, lastSeenAt: seen, appVersion: version, clientAddress: address, revokedAt: revoked)
            }
            return try .json(SessionList(sessions: sessions))
        }
        router.delete("/v1/devices/{id}/sessions/{session}") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let session = try context.parameter("session")
            let changed = try await database.execute("""
                UPDATE device_sessions SET revoked_at = \(clock()) WHERE device_id = \(device.deviceID) AND session_id = \(session) AND revoked_at IS NULL
                """)
            guard changed == 1 else { throw HTTPError(.notFound, code: "session-not-found", detail: "no such active session for this device") }
            return .empty(.noContent)
        }
        router.get("/v1/devices/{id}/entitlements") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            return try .json(try await entitlement(of: device))
        }
        router.get("/v1/devices/{id}/diagnostics") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            return try .json(try await diagnostics(of: device.deviceID))
        }
    }

    /// `POST /v1/devices`: proof of possession of the signing key, then insert or refresh.
    ///
    /// A key alone registers a new device, or opens a session of a device that
    /// has none active. A device with an active session is refreshed only by a
    /// request carrying one of them (`Mailwake-Session`), so a copied key cannot
    /// open sessions of its own after the owner revoked the thief's; a deleted
    /// device comes back only with the `recovery_code` its deletion answered.
    func registerDevice(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let body = try request.decodeJSON(DeviceRegistration.self)
        guard (try? P256.KeyAgreement.PublicKey(x963Representation: body.agreementKey)) != nil else {
            throw ProtocolError(.invalidKey, "agreement_key is not a point on P-256")
        }
        let deviceID = KeyIdentity.id(of: try await gate.verifyFirstContact(request, key: body.signingKey, field: "signing_key"))

        let now = clock()
        let existing = try await loadDevice(deviceID)
        if let existing, existing.blockedAt != nil {
            throw HTTPError(.forbidden, code: "device-blocked", detail: "this device is blocked by the operator")
        }
        // The row the upsert may change: a live device, or a deleted one whose recovery digest the request proves.
        var recoveryDigest: [UInt8]?
        if let existing, existing.deletedAt != nil {
            guard let code = body.recoveryCode else {
                throw HTTPError(.gone, code: "device-deleted",
                                detail: "this device was deleted; the App restores it only with the recovery_code its deletion answered")
            }
            let stored = try await database.query("SELECT recovery_digest FROM devices WHERE device_id = \(deviceID)").first?.decode([UInt8]?.self, at: 0)
            let digest = SHA256.hash(Array(code.utf8)).bytes
            guard let stored, ConstantTime.equals(stored, digest) else {
                throw HTTPError(.forbidden, code: "recovery-code-invalid", detail: "this is not the recovery code of this device's deletion")
            }
            recoveryDigest = digest
        } else if existing != nil {
            try await checkReregistration(request, deviceID: deviceID)
        }
        let changed = try await database.query("""
            INSERT INTO devices (device_id, signing_key, agreement_key, apns_token, apns_environment, apns_token_updated_at, bundle_id,
                                 app_version, push_to_start_token, created_at, updated_at)
            VALUES (\(deviceID), \(body.signingKey), \(body.agreementKey), \(body.apnsToken), \(body.apnsEnvironment.rawValue), \(now),
                    \(body.bundleID), \(body.appVersion), \(body.pushToStartToken), \(now), \(now))
            ON CONFLICT (device_id) DO UPDATE SET
              agreement_key = EXCLUDED.agreement_key, apns_token = EXCLUDED.apns_token, apns_environment = EXCLUDED.apns_environment,
              apns_token_updated_at = EXCLUDED.apns_token_updated_at, bundle_id = EXCLUDED.bundle_id, app_version = EXCLUDED.app_version,
              push_to_start_token = EXCLUDED.push_to_start_token, updated_at = EXCLUDED.updated_at, deleted_at = NULL, recovery_digest = NULL
            WHERE devices.blocked_at IS NULL AND (devices.deleted_at IS NULL OR devices.recovery_digest = \(recoveryDigest))
            RETURNING 1
            """)
        guard changed.count == 1 else {
            throw HTTPError(.conflict, code: "device-changed", detail: "the device was deleted or blocked meanwhile; try again")
        }
        let sessionID = try PairingID.generate()
        try await database.execute("""
            INSERT INTO device_sessions (session_id, device_id, created_at, last_seen_at, app_version, client_address)
            VALUES (\(sessionID), \(deviceID), \(now), \(now), \(body.appVersion), \(request.remoteAddress))
            """)
        let event = existing == nil ? "device registered" : recoveryDigest != nil ? "device recovered" : "device re-registered"
        context.logger.info(event, ["device_id": .string(deviceID)])
        return try .json(DeviceRegistered(deviceID: deviceID, sessionID: sessionID), status: existing == nil ? .created : .ok)
    }

    /// A live device registers again only with one of its active sessions, unless it has none.
    private func checkReregistration(_ request: HTTPRequest, deviceID: String) async throws {
        let active = try await database.query("""
            SELECT session_id FROM device_sessions WHERE device_id = \(deviceID) AND revoked_at IS NULL
            """).map { try $0.decode(String.self, at: 0) }
        guard !active.isEmpty else { return }
        guard let session = request.headers["Mailwake-Session"], active.contains(session) else {
            throw HTTPError(.conflict, code: "device-registered",
                            detail: "this device is registered and has an active session: registering again needs Mailwake-Session of one of them")
        }
    }

    /// Verifies a device-signed request and its active session (`Mailwake-Session`, required), and touches the session.
    /// The device is the path's `{id}`, or the signer when the route has none (`/v1/purchases`).
    func authenticateDevice(_ request: HTTPRequest, _ context: RequestContext) async throws -> DeviceRecord {
        let header = try gate.header(of: request)
        let id = context.parameters["id"] ?? header.keyID
        guard header.keyID == id else {
            throw HTTPError(.forbidden, code: "wrong-device", detail: "a device may only act on itself")
        }
        guard let device = try await loadDevice(id), device.deletedAt == nil else {
            throw HTTPError(.notFound, code: "device-not-found", detail: "no such device")
        }
        let key = try P256.Signing.PublicKey(x963Representation: device.signingKey)
        try await gate.verify(request, key: key)
        guard device.blockedAt == nil else { throw HTTPError(.forbidden, code: "device-blocked", detail: "this device is blocked by the operator") }
        guard let session = request.headers["Mailwake-Session"] else {
            throw HTTPError(.unauthorized, code: "session-required", detail: "device calls carry Mailwake-Session: the session_id registration answered")
        }
        let now = clock()
        let rows = try await database.query("""
            UPDATE device_sessions SET last_seen_at = \(now), client_address = \(request.remoteAddress)
            WHERE session_id = \(session) AND device_id = \(id) AND revoked_at IS NULL RETURNING 1
            """)
        guard rows.count == 1 else {
            let known = try await database.query("SELECT 1 FROM device_sessions WHERE session_id = \(session) AND device_id = \(id)")
            guard known.count == 0 else { throw HTTPError(.unauthorized, code: "session-revoked", detail: "this session was revoked") }
            throw HTTPError(.unauthorized, code: "session-unknown", detail: "no such session for this device")
        }
        return device
    }

    func loadDevice(_ id: String) async throws -> DeviceRecord? {
        var bindings = PostgresBindings()
        bindings.append(id)
        let rows = try await database.query(PostgresQuery(unsafeSQL: "SELECT \(DeviceRecord.columns) FROM devices WHERE device_id = $1", bindings: bindings))
        return try rows.first.map(DeviceRecord.init(row:))
    }
}
