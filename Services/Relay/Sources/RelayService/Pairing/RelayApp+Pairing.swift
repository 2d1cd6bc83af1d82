import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol

extension RelayApp {
    /// The longest `?wait=` of a consent long-poll, in seconds.
    static let maxConsentWait = 30
    /// The longest a pending pairing may live, in seconds (PROTOCOL.md §9).
    static let maxPairingLifetime: Int64 = 300

    func addPairingRoutes(to router: inout Router) {
        router.post("/v1/pairings") { [self] request, context in
            try await pairingLimiter.admit(request)
            let body = try request.decodeJSON(PairingRegistration.self)
            let outpostID = KeyIdentity.id(of: try await gate.verifyFirstContact(request, key: body.outpostKey, field: "outpost_key"))
            let now = clock()
            guard body.expiresAt > now else { throw ProtocolError(.expired, "expires_at has passed") }
            guard body.expiresAt <= now + Self.maxPairingLifetime else {
                throw HTTPError(.badRequest, code: "expiry-too-far", detail: "expires_at may be at most \(Self.maxPairingLifetime) seconds ahead")
            }
            try await requireStanding(outpostID: outpostID, key: body.outpostKey, register: true)
            let inserted = try await database.execute("""
                INSERT INTO pairings (pairing_id, outpost_id, outpost_key, relay_token_hash, expires_at, state, created_at)
                VALUES (\(body.pairingID), \(outpostID), \(body.outpostKey), \(body.relayTokenHash), \(body.expiresAt), 'pending', \(now))
                ON CONFLICT (pairing_id) DO NOTHING
                """)
            if inserted == 0 {
                // The same registration again (a retried request) is not an error.
                let existing = try await loadPairing(body.pairingID)
                guard let existing, existing.outpostID == outpostID, existing.state == .pending,
                      ConstantTime.equals(existing.relayTokenHash, body.relayTokenHash), existing.expiresAt == body.expiresAt
                else { throw HTTPError(.conflict, code: "pairing-exists", detail: "this pairing id is taken") }
                return try pairingResponse(existing, status: .ok)
            }
            context.logger.info("pairing registered", ["pairing_id": .string(body.pairingID), "outpost_id": .string(outpostID)])
            return try pairingResponse(PairingRecord(pairingID: body.pairingID, outpostID: outpostID, outpostKey: body.outpostKey,
                                                     relayTokenHash: body.relayTokenHash, expiresAt: body.expiresAt, state: .pending),
                                       status: .created)
        }

        router.post("/v1/pairings/{id}/consent") { [self] request, context in
            let id = try context.parameter("id")
            let submission = try request.decodeJSON(ConsentSubmission.self, maxBytes: 8192)
            guard let pairing = try await loadPairing(id) else { throw Self.pairingNotFound }
            guard pairing.state == .pending else {
                throw HTTPError(.conflict, code: "credential-used", detail: "this pairing already has a consent")
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
                throw HTTPError(.forbidden, code: "device-not-registered", detail: "register the device at accounts first")
            }
            guard authorization.active else {
                throw HTTPError(.forbidden, code: "device-not-authorized", detail: "this device may not receive push")
            }
            let updated = try await database.execute("""
                UPDATE pairings SET state = 'consented', device_id = \(deviceID), consent = \(submission.consent.jsonBytes), consented_at = \(now)
                WHERE pairing_id = \(id) AND state = 'pending'
                """)
            guard updated == 1 else { throw HTTPError(.conflict, code: "credential-used", detail: "this pairing already has a consent") }
            consentSignals.signal(id)
            context.logger.info("pairing consented", ["pairing_id": .string(id), "device_id": .string(deviceID)])
            return .json(bytes: Array(#"{"status":"consented"}"#.utf8), status: .accepted)
        }

        router.get("/v1/pairings/{id}/consent") { [self] request, context in
            let id = try context.parameter("id")
            let wait = try Self.waitSeconds(request.query("wait"))
            var pairing = try await authorizeOutpost(request, pairingID: id)
            let deadline = ContinuousClock.now + .seconds(wait)
            while pairing.state == .pending, clock() <= pairing.expiresAt, ContinuousClock.now < deadline {
                await consentSignals.wait(for: id, timeout: min(.seconds(1), deadline - ContinuousClock.now))
                guard let fresh = try await loadPairing(id) else { throw Self.pairingNotFound }
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

        router.post("/v1/pairings/{id}/confirm") { [self] request, context in
            let id = try context.parameter("id")
            let pairing = try await authorizeOutpost(request, pairingID: id)
            switch pairing.state {
            case .pending: throw HTTPError(.conflict, code: "no-consent", detail: "no device has consented to this pairing yet")
            case .ended: throw Self.pairingEnded
            case .active: return .json(bytes: Array(#"{"status":"active"}"#.utf8))
            case .consented:
                try await requireStanding(outpostID: pairing.outpostID, key: pairing.outpostKey, register: false)
                let updated = try await database.execute("""
                    UPDATE pairings SET state = 'active', confirmed_at = \(clock()) WHERE pairing_id = \(id) AND state = 'consented'
                    """)
                guard updated == 1 else { throw HTTPError(.conflict, code: "pairing-changed", detail: "the pairing changed meanwhile; read it again") }
                pairings.remove(id)
                context.logger.info("pairing active", ["pairing_id": .string(id), "device_id": .string(pairing.deviceID ?? "")])
                return .json(bytes: Array(#"{"status":"active"}"#.utf8))
            }
        }

        router.delete("/v1/pairings/{id}") { [self] request, context in
            let id = try context.parameter("id")
            let header = try gate.header(of: request)
            guard let pairing = try await loadPairing(id) else { throw Self.pairingNotFound }
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
            let now = clock()
            try await database.execute("""
                UPDATE pairings SET state = 'ended', ended_at = \(now), ended_by = \(endedBy) WHERE pairing_id = \(id) AND state <> 'ended'
                """)
            pairings.remove(id)
            let cancelled = try await queue.failUnfinished(pairingID: id, reason: "pairing_ended", nowMS: clockMS())
            if let deviceID = pairing.deviceID { try await queue.dropCatchUp(pairingID: id, deviceID: deviceID) }
            context.logger.info("pairing ended", ["pairing_id": .string(id), "by": .string(endedBy), "deliveries_cancelled": .int(cancelled)])
            return .empty(.noContent)
        }
    }

    /// The pairing, after checking the request is signed by its outpost.
    func authorizeOutpost(_ request: HTTPRequest, pairingID: String) async throws -> PairingRecord {
        let header = try gate.header(of: request)
        guard let pairing = try await loadPairing(pairingID) else { throw Self.pairingNotFound }
        guard header.keyID == pairing.outpostID else { throw ProtocolError(.wrongKey, "this pairing belongs to another outpost") }
        try await gate.verify(request, key: try pairing.outpostPublicKey)
        return pairing
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
        guard !standing.blocked else { throw HTTPError(.forbidden, code: "outpost-blocked", detail: "this outpost is blocked by the relay operator") }
    }

    func loadPairing(_ id: String) async throws -> PairingRecord? {
        guard PairingID.isValid(id) else { return nil }
        var bindings = PostgresBindings()
        bindings.append(id)
        return try await database.query(PostgresQuery(unsafeSQL: "SELECT \(PairingRecord.columns) FROM pairings WHERE pairing_id = $1", bindings: bindings))
            .first.map(PairingRecord.init(row:))
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
            throw HTTPError(.badRequest, code: "bad-wait", detail: "wait must be 0 to \(maxConsentWait) seconds")
        }
        return n
    }

    static let pairingNotFound = HTTPError(.notFound, code: "pairing-not-found", detail: "no such pairing")
    static let pairingEnded = HTTPError(.gone, code: "pairing-ended", detail: "this pairing has ended")
    static let accountsUnavailable = HTTPError(.serviceUnavailable, code: "accounts-unavailable", detail: "the device and purchase service did not answer; try again",
                                               headers: ["Retry-After": "5"])
}
