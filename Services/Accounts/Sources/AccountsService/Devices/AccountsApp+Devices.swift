import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

extension AccountsApp {
    func addDeviceRoutes(to router: inout Router) {
        router.post("/v1/devices") { [self] request, context in try await registerDevice(request, context) }
        router.patch("/v1/devices/{id}") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let update = try request.decodeJSON(DeviceUpdate.self)
            try await deviceStore.update(device.deviceID, update, now: clock())
            return try .json(DeviceSummary(try await deviceStore.load(device.deviceID)!))
        }
        router.delete("/v1/devices/{id}") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let now = clock()
            // The App keeps this code to restore the device later (POST /v1/devices with recovery_code):
            // a key copied before the deletion does not bring the device back without it.
            let recoveryCode = Base64URL.encode(try SecureRandom.bytes(32))
            try await deviceStore.delete(device.deviceID, recoveryDigest: SHA256.hash(Array(recoveryCode.utf8)).bytes, now: now)
            context.logger.info("device deleted", ["device_id": .string(device.deviceID)])
            return try .json(DeviceDeleted(deviceID: device.deviceID, recoveryCode: recoveryCode))
        }
        router.post("/v1/devices/{id}/live-activity-tokens") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let body = try request.decodeJSON(LiveActivityTokenRegistration.self)
            try await liveActivityTokenStore.save(deviceID: device.deviceID, activityID: body.activityID, token: body.token, now: clock())
            return .empty(.noContent)
        }
        router.get("/v1/devices/{id}/sessions") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let sessions = try await sessionStore.list(device.deviceID)
            return try .json(SessionList(sessions: sessions))
        }
        router.delete("/v1/devices/{id}/sessions/{session}") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let session = try context.parameter("session")
            let revoked = try await sessionStore.revoke(session, deviceID: device.deviceID, now: clock())
            guard revoked else { throw HTTPError(.notFound, code: "session-not-found", detail: "no such active session for this device") }
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
        let existing = try await deviceStore.load(deviceID)
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
            let stored = try await deviceStore.recoveryDigest(of: deviceID)
            let digest = SHA256.hash(Array(code.utf8)).bytes
            guard let stored, ConstantTime.equals(stored, digest) else {
                throw HTTPError(.forbidden, code: "recovery-code-invalid", detail: "this is not the recovery code of this device's deletion")
            }
            recoveryDigest = digest
        } else if existing != nil {
            try await checkReregistration(request, deviceID: deviceID)
        }
        let session = NewSession(sessionID: try PairingID.generate(), appVersion: body.appVersion, clientAddress: request.remoteAddress)
        guard try await deviceStore.register(deviceID, body, recoveryDigest: recoveryDigest, session: session, now: now) else {
            throw HTTPError(.conflict, code: "device-changed", detail: "the device was deleted or blocked meanwhile; try again")
        }
        let event = existing == nil ? "device registered" : recoveryDigest != nil ? "device recovered" : "device re-registered"
        context.logger.info(event, ["device_id": .string(deviceID)])
        return try .json(DeviceRegistered(deviceID: deviceID, sessionID: session.sessionID), status: existing == nil ? .created : .ok)
    }

    /// A live device registers again only with one of its active sessions, unless it has none.
    private func checkReregistration(_ request: HTTPRequest, deviceID: String) async throws {
        let active = try await sessionStore.activeIDs(of: deviceID)
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
        guard let device = try await deviceStore.load(id), device.deletedAt == nil else {
            throw HTTPError(.notFound, code: "device-not-found", detail: "no such device")
        }
        let key = try P256.Signing.PublicKey(x963Representation: device.signingKey)
        try await gate.verify(request, key: key)
        guard device.blockedAt == nil else { throw HTTPError(.forbidden, code: "device-blocked", detail: "this device is blocked by the operator") }
        guard let session = request.headers["Mailwake-Session"] else {
            throw HTTPError(.unauthorized, code: "session-required", detail: "device calls carry Mailwake-Session: the session_id registration answered")
        }
        switch try await sessionStore.touch(session, deviceID: id, clientAddress: request.remoteAddress, now: clock()) {
        case .active: break
        case .revoked: throw HTTPError(.unauthorized, code: "session-revoked", detail: "this session was revoked")
        case .unknown: throw HTTPError(.unauthorized, code: "session-unknown", detail: "no such session for this device")
        }
        return device
    }
}
