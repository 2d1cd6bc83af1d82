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
            try await database.execute("UPDATE devices SET deleted_at = \(now), updated_at = \(now), apns_token = '', push_to_start_token = NULL WHERE device_id = \(device.deviceID)")
            try await database.execute("UPDATE device_sessions SET revoked_at = \(now) WHERE device_id = \(device.deviceID) AND revoked_at IS NULL")
            context.logger.info("device deleted", ["device_id": .string(device.deviceID)])
            return .empty(.noContent)
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
        try await database.execute("""
            INSERT INTO devices (device_id, signing_key, agreement_key, apns_token, apns_environment, apns_token_updated_at, bundle_id,
                                 app_version, push_to_start_token, created_at, updated_at)
            VALUES (\(deviceID), \(body.signingKey), \(body.agreementKey), \(body.apnsToken), \(body.apnsEnvironment.rawValue), \(now),
                    \(body.bundleID), \(body.appVersion), \(body.pushToStartToken), \(now), \(now))
            ON CONFLICT (device_id) DO UPDATE SET
              agreement_key = EXCLUDED.agreement_key, apns_token = EXCLUDED.apns_token, apns_environment = EXCLUDED.apns_environment,
              apns_token_updated_at = EXCLUDED.apns_token_updated_at, bundle_id = EXCLUDED.bundle_id, app_version = EXCLUDED.app_version,
              push_to_start_token = EXCLUDED.push_to_start_token, updated_at = EXCLUDED.updated_at, deleted_at = NULL
            """)
        let sessionID = try PairingID.generate()
        try await database.execute("""
            INSERT INTO device_sessions (session_id, device_id, created_at, last_seen_at, app_version, client_address)
            VALUES (\(sessionID), \(deviceID), \(now), \(now), \(body.appVersion), \(request.remoteAddress))
            """)
        context.logger.info(existing == nil ? "device registered" : "device re-registered", ["device_id": .string(deviceID)])
        return try .json(DeviceRegistered(deviceID: deviceID, sessionID: sessionID), status: existing == nil ? .created : .ok)
    }

    /// Verifies a device-signed request and touches its session. The device is
    /// the path's `{id}`, or the signer when the route has none (`/v1/purchases`).
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
        if let session = request.headers["Mailwake-Session"] {
            let now = clock()
            let rows = try await database.query("""
                UPDATE device_sessions SET last_seen_at = \(now), client_address = \(request.remoteAddress)
                WHERE session_id = \(session) AND device_id = \(id) RETURNING revoked_at
                """)
            guard let row = rows.first else { throw HTTPError(.unauthorized, code: "session-unknown", detail: "no such session for this device") }
            guard try row.decode(Int64?.self, at: 0) == nil else {
                throw HTTPError(.unauthorized, code: "session-revoked", detail: "this session was revoked")
            }
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
