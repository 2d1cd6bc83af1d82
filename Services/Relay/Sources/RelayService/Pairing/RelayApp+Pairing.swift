import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

extension RelayApp {
    /// The longest `?wait=` of a consent long-poll, in seconds.
    static let maxConsentWait = 30
    /// The longest a pending pairing may live, in seconds (PROTOCOL.md §9).
    static let maxPairingLifetime: Int64 = 300

    func addPairingRoutes(to router: inout Router) {
        router.post("/v1/pairings") { [self] request, context in try await registerPairing(request, context) }
        router.post("/v1/pairings/{id}/consent") { [self] request, context in try await submitConsent(request, context) }
        router.group("/v1/pairings/{id}", middleware: [outpostOfPairing("id")]) { outpost in
            outpost.get("/consent") { [self] request, context in
                try await consentResponse(try context.authenticated(PairingRecord.self),
                                          waiting: try Self.waitSeconds(request.query("wait")))
            }
            outpost.post("/confirm") { [self] _, context in try await confirm(try context.authenticated(PairingRecord.self), context) }
        }
        router.delete("/v1/pairings/{id}") { [self] request, context in try await endPairing(request, context) }
    }

    /// `POST /v1/pairings`: an outpost registers a pending pairing (a retried registration answers 200).
    func registerPairing(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try await pairingLimiter.admit(request)
        let body = try request.decodeJSON(PairingRegistration.self)
        let outpostID = KeyIdentity.id(of: try await gate.verifyFirstContact(request, key: body.outpostKey, field: "outpost_key"))
        let now = clock()
        guard body.expiresAt > now else { throw ProtocolError(.expired, "expires_at has passed") }
        guard body.expiresAt <= now + Self.maxPairingLifetime else {
            throw HTTPError(.badRequest, code: .expiryTooFar, detail: "expires_at may be at most \(Self.maxPairingLifetime) seconds ahead")
        }
        try await requireStanding(outpostID: outpostID, key: body.outpostKey, register: true)
        let pairing = PairingRecord(pairingID: body.pairingID, outpostID: outpostID, outpostKey: body.outpostKey,
                                    relayTokenHash: body.relayTokenHash, expiresAt: body.expiresAt, state: .pending)
        guard try await pairingStore.insertPending(pairing, now: now) else {
            // The same registration again (a retried request) is not an error.
            let existing = try await pairingStore.load(body.pairingID)
            guard let existing, existing.outpostID == outpostID, existing.state == .pending,
                  ConstantTime.equals(existing.relayTokenHash, body.relayTokenHash), existing.expiresAt == body.expiresAt
            else { throw HTTPError(.conflict, code: .pairingExists, detail: "this pairing id is taken") }
            return try pairingResponse(existing, status: .ok)
        }
        context.logger.info("pairing registered", ["pairing_id": .string(body.pairingID), "outpost_id": .string(outpostID)])
        return try pairingResponse(pairing, status: .created)
    }

    /// `POST /v1/pairings/{id}/consent`: a device consents with the relay token of the pairing link.
    func submitConsent(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let id = try context.parameter("id")
        let submission = try request.decodeJSON(ConsentSubmission.self, maxBytes: 8192)
        guard let pairing = try await pairingStore.load(id) else { throw Self.pairingNotFound }
        guard pairing.state == .pending else {
            throw HTTPError(.conflict, code: .credentialUsed, detail: "this pairing already has a consent")
        }
        let now = clock()
        guard now <= pairing.expiresAt else { throw ProtocolError(.expired, "the pairing credential has expired") }
        guard ConstantTime.equals(SHA256.hash(submission.relayToken).bytes, pairing.relayTokenHash) else {
            throw ProtocolError(.badCredential, "the relay token does not match this pairing")
        }
        // The relay cannot check the consent's mac (it never holds mac_key); the outpost does.
        try submission.consent.verifySignature(outpostKey: pairing.outpostKey, audience: configuration.publicOrigin, pairingID: id,
                                               expectedExpiry: pairing.expiresAt, now: now)
        let deviceID = submission.consent.deviceID
        let authorization: DeviceAuthorization?
        do {
            authorization = try await accounts.authorization(of: deviceID)
        } catch {
            throw Self.accountsUnavailable
        }
        guard let authorization else {
            throw HTTPError(.forbidden, code: .deviceNotRegistered, detail: "register the device at accounts first")
        }
        guard authorization.active else {
            throw HTTPError(.forbidden, code: .deviceNotAuthorized, detail: "this device may not receive push")
        }
        guard try await pairingStore.recordConsent(pairingID: id, deviceID: deviceID, consent: submission.consent.jsonBytes,
                                                   now: now) else {
            throw HTTPError(.conflict, code: .credentialUsed, detail: "this pairing already has a consent")
        }
        consentSignals.signal(id)
        context.logger.info("pairing consented", ["pairing_id": .string(id), "device_id": .string(deviceID)])
        return .json(bytes: Array(#"{"status":"consented"}"#.utf8), status: .accepted)
    }

    /// `GET /v1/pairings/{id}/consent`: the consent, once there is one, waiting up to `wait` seconds for it.
    func consentResponse(_ authorized: PairingRecord, waiting wait: Int) async throws -> HTTPResponse {
        var pairing = authorized
        let deadline = ContinuousClock.now + .seconds(wait)
        while pairing.state == .pending, clock() <= pairing.expiresAt, ContinuousClock.now < deadline {
            await consentSignals.wait(for: pairing.pairingID, timeout: min(.seconds(1), deadline - ContinuousClock.now))
            guard let fresh = try await pairingStore.load(pairing.pairingID) else { throw Self.pairingNotFound }
            pairing = fresh
        }
        switch pairing.state {
        case .pending:
            guard clock() <= pairing.expiresAt else { throw ProtocolError(.expired, "the pairing expired without a consent") }
            return .json(bytes: Array(#"{"status":"pending"}"#.utf8), status: .accepted)
        case .consented, .active:
            var w = JSONWriter(capacity: 900)
            w.beginObject()
            w.string("status", pairing.state.rawValue)
            w.raw("consent", pairing.consent ?? Array("null".utf8))
            w.endObject()
            return .json(bytes: w.bytes)
        case .ended:
            throw Self.pairingEnded
        }
    }

    /// `POST /v1/pairings/{id}/confirm`: the outpost confirms the device's consent; deliveries start.
    func confirm(_ pairing: PairingRecord, _ context: RequestContext) async throws -> HTTPResponse {
        switch pairing.state {
        case .pending: throw HTTPError(.conflict, code: .noConsent, detail: "no device has consented to this pairing yet")
        case .ended: throw Self.pairingEnded
        case .active: return .json(bytes: Array(#"{"status":"active"}"#.utf8))
        case .consented:
            try await requireStanding(outpostID: pairing.outpostID, key: pairing.outpostKey, register: false)
            guard try await pairingStore.activate(pairingID: pairing.pairingID, now: clock()) else {
                throw HTTPError(.conflict, code: .pairingChanged, detail: "the pairing changed meanwhile; read it again")
            }
            pairings.remove(pairing.pairingID)
            context.logger.info("pairing active", ["pairing_id": .string(pairing.pairingID), "device_id": .string(pairing.deviceID ?? "")])
            return .json(bytes: Array(#"{"status":"active"}"#.utf8))
        }
    }

    /// `DELETE /v1/pairings/{id}`: its outpost or its device ends the pairing.
    func endPairing(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let id = try context.parameter("id")
        let header = try gate.header(of: request)
        guard let pairing = try await pairingStore.load(id) else { throw Self.pairingNotFound }
        let endedBy: String
        if header.keyID == pairing.outpostID {
            try await gate.verify(request, key: try pairing.outpostPublicKey)
            endedBy = "outpost"
        } else if let deviceID = pairing.deviceID, header.keyID == deviceID, let key = pairing.deviceSigningKey {
            try await gate.verify(request, key: key)
            endedBy = "device"
        } else {
            throw ProtocolError(.wrongKey, "only the pairing's outpost or its device may end it")
        }
        guard pairing.state != .ended else { return .empty(.noContent) }
        let cancelled = try await pairingStore.end(pairingID: id, deviceID: pairing.deviceID, endedBy: endedBy, now: clock(),
                                                   nowMS: clockMS())
        pairings.remove(id)
        context.logger.info("pairing ended", ["pairing_id": .string(id), "by": .string(endedBy), "deliveries_cancelled": .int(cancelled)])
        return .empty(.noContent)
    }

    /// Authorizes the outpost of the pairing named by the path parameter `parameter`.
    func outpostOfPairing(_ parameter: String) -> any HTTPMiddleware {
        PairingOutpostAuthorization(gate: gate, pairings: pairingStore, parameter: parameter)
    }

    /// Refuses an outpost blocked at accounts (registering it on first contact).
    func requireStanding(outpostID: String, key: [UInt8], register: Bool) async throws {
        let standing: OutpostStanding
        do {
            standing = register ? try await accounts.register(outpostKey: key, outpostID: outpostID)
                                : try await accounts.standing(of: outpostID, key: key)
        } catch {
            throw Self.accountsUnavailable
        }
        guard !standing.blocked else { throw HTTPError(.forbidden, code: .outpostBlocked,
                                                       detail: "this outpost is blocked by the relay operator") }
    }

    func pairingResponse(_ p: PairingRecord, status: HTTPStatus) throws -> HTTPResponse {
        var w = JSONWriter()
        w.beginObject()
        w.string("pairing_id", p.pairingID)
        w.string("status", p.state.rawValue)
        w.int("expires_at", p.expiresAt)
        w.endObject()
        return .json(bytes: w.bytes, status: status)
    }

    static func waitSeconds(_ raw: String?) throws -> Int {
        guard let raw else { return 0 }
        guard let n = Int(raw), (0...maxConsentWait).contains(n) else {
            throw HTTPError(.badRequest, code: .badWait, detail: "wait must be 0 to \(maxConsentWait) seconds")
        }
        return n
    }

    static let pairingNotFound = HTTPError(.notFound, code: .pairingNotFound, detail: "no such pairing")
    static let pairingEnded = HTTPError(.gone, code: .pairingEnded, detail: "this pairing has ended")
    static let accountsUnavailable = HTTPError(.serviceUnavailable, code: .accountsUnavailable,
                                               detail: "the device and purchase service did not answer; try again",
                                               headers: ["Retry-After": "5"])
}
