import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

extension AccountsApp {
    func addDeviceRoutes(to router: inout Router) {
        router.post("/v1/devices") { [self] request, context in try await registerDevice(request, context) }
        router.group("/v1/devices/{id}", middleware: deviceAuthentication) { device in
            addAuthenticatedDeviceRoutes(to: &device)
        }
    }

    /// The routes of one registered device, behind `DeviceSessionAuthentication`.
    func addAuthenticatedDeviceRoutes(to router: inout RouterGroup) {
        router.patch("/") { [self] request, context in
            let device = try context.authenticated(DeviceRecord.self)
            let update = try request.decodeJSON(DeviceUpdate.self)
            try await deviceStore.update(device.deviceID, update, now: clock())
            return try .json(DeviceSummary(try await deviceStore.load(device.deviceID)!))
        }
        router.delete("/") { [self] request, context in
            let device = try context.authenticated(DeviceRecord.self)
            let now = clock()
            // The App keeps this code to restore the device later (POST /v1/devices with recovery_code):
            // a key copied before the deletion does not bring the device back without it.
            let recoveryCode = Base64URL.encode(try SecureRandom.bytes(32))
            try await deviceStore.delete(device.deviceID, recoveryDigest: SHA256.hash(Array(recoveryCode.utf8)).bytes, now: now)
            context.logger.info("device deleted", ["device_id": .string(device.deviceID)])
            return try .json(DeviceDeleted(deviceID: device.deviceID, recoveryCode: recoveryCode))
        }
        router.post("/live-activity-tokens") { [self] request, context in
            let device = try context.authenticated(DeviceRecord.self)
            let body = try request.decodeJSON(LiveActivityTokenRegistration.self)
            try await liveActivityTokenStore.save(deviceID: device.deviceID, activityID: body.activityID, token: body.token, now: clock())
            return .empty(.noContent)
        }
        router.get("/sessions") { [self] request, context in
            let device = try context.authenticated(DeviceRecord.self)
            let sessions = try await sessionStore.list(device.deviceID)
            return try .json(SessionList(sessions: sessions))
        }
        router.delete("/sessions/{session}") { [self] request, context in
            let device = try context.authenticated(DeviceRecord.self)
            let session = try context.parameter("session")
            let revoked = try await sessionStore.revoke(session, deviceID: device.deviceID, now: clock())
            guard revoked else { throw HTTPError(.notFound, code: .sessionNotFound, detail: "no such active session for this device") }
            return .empty(.noContent)
        }
        router.get("/entitlements") { [self] request, context in
            let device = try context.authenticated(DeviceRecord.self)
            return try .json(try await entitlement(of: device))
        }
        router.get("/diagnostics") { [self] request, context in
            let device = try context.authenticated(DeviceRecord.self)
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
            throw HTTPError(.forbidden, code: .deviceBlocked, detail: "this device is blocked by the operator")
        }
        // The row the upsert may change: a live device, or a deleted one whose recovery digest the request proves.
        var recoveryDigest: [UInt8]?
        if let existing, existing.deletedAt != nil {
            guard let code = body.recoveryCode else {
                throw HTTPError(.gone, code: .deviceDeleted,
                                detail: "this device was deleted; the App restores it only with the recovery_code its deletion answered")
            }
            let stored = try await deviceStore.recoveryDigest(of: deviceID)
            let digest = SHA256.hash(Array(code.utf8)).bytes
            guard let stored, ConstantTime.equals(stored, digest) else {
                throw HTTPError(.forbidden, code: .recoveryCodeInvalid, detail: "this is not the recovery code of this device's deletion")
            }
            recoveryDigest = digest
        } else if existing != nil {
            try await checkReregistration(request, deviceID: deviceID)
        }
        let session = NewSession(sessionID: try PairingID.generate(), appVersion: body.appVersion, clientAddress: request.remoteAddress)
        guard try await deviceStore.register(deviceID, body, recoveryDigest: recoveryDigest, session: session, now: now) else {
            throw HTTPError(.conflict, code: .deviceChanged, detail: "the device was deleted or blocked meanwhile; try again")
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
            throw HTTPError(.conflict, code: .deviceRegistered,
                            detail: "this device is registered and has an active session: registering again needs Mailwake-Session of " +
                                    "one of them")
        }
    }
}
