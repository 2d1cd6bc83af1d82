import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol
import MailwakeServiceSupport

extension RelayApp {
    /// How far in the future an envelope's `iat` may be (PROTOCOL.md §5).
    static let maxFutureSkew: Int64 = 600

    func addIntakeRoutes(to router: inout Router) {
        router.post("/v1/envelopes") { [self] request, context in
            do {
                return try await accept(request, context)
            } catch {
                throw intakeProblem(error, context)
            }
        }

        // Envelopes whose pairing and accounts answers are cached are checked, verified and
        // queued on the listener's thread; the rest take the route above.
        router.inline(.post, "/v1/envelopes") { [self] request, context, reply in acceptInline(request, context, reply) }

        router.group(middleware: [outpostOfPairing("pairing_id")]) { outpost in
            outpost.get("/v1/envelopes/{pairing_id}/{event_id}") { [self] _, context in try await deliveryStatus(context) }
        }
    }

    /// `GET /v1/envelopes/{pairing_id}/{event_id}`: what became of one envelope, for its outpost.
    func deliveryStatus(_ context: RequestContext) async throws -> HTTPResponse {
        let pairing = try context.authenticated(PairingRecord.self)
        let eventID = try context.parameter("event_id")
        guard EventID.isValid(eventID), let report = try await deliveryStatusStore.report(pairingID: pairing.pairingID, eventID: eventID)
        else { throw HTTPError(.notFound, code: .envelopeNotFound, detail: "no envelope with this event id for this pairing") }
        return .json(bytes: report.jsonBytes)
    }

    /// The intake checks of issue/PROTOCOL §5, in order, then the durable write.
    func accept(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        relayMetrics.checkedOnTask.increment()
        let (envelope, iat, canonical) = try checkedEnvelope(request)
        let (pairing, deviceID) = try await activePairing(envelope.context.pairingID)
        // 6. the signature, against the outpost key pinned for the pairing.
        // The outpost's rate is taken by the durable write below, and only
        // for envelopes not stored before: forgeries never get there, and a
        // replayed authentic envelope is answered as the duplicate it is
        // without spending the outpost's budget.
        try EnvelopeVerifier.verify(envelope, outpostKey: outpostKeyTables.verifier(for: try pairing.outpostPublicKey))
        let authorization = try await deliveryAuthorization(pairing, deviceID: deviceID)
        let delivery = try claimed { claimedHere throws in
            try newDelivery(envelope, canonical: canonical, request: request, pairing: pairing, deviceID: deviceID, iat: iat,
                            claimedHere: claimedHere)
        }
        try await enqueue(delivery, pairing: pairing, authorization: authorization)
        return Self.queued
    }

    /// The same checks as `accept`, on the listener's thread, when the pairing and the accounts answers are
    /// cached; declines (false) otherwise, before the verify, and `accept` runs on a task instead.
    func acceptInline(_ request: HTTPRequest, _ context: RequestContext, _ reply: InlineReply) -> Bool {
        do {
            let (envelope, iat, canonical) = try checkedEnvelope(request)
            guard let (pairing, deviceID) = try cachedActivePairing(envelope.context.pairingID),
                  let accountsAnswer = accounts.cached(outpostID: pairing.outpostID, deviceID: deviceID)
            else { return false }
            try EnvelopeVerifier.verify(envelope, outpostKey: outpostKeyTables.verifier(for: try pairing.outpostPublicKey))
            let authorization = try Self.deliveryAuthorization(standing: accountsAnswer.standing, accountsAnswer.authorization)
            let delivery = try claimed { claimedHere throws in
                try newDelivery(envelope, canonical: canonical, request: request, pairing: pairing, deviceID: deviceID, iat: iat,
                                claimedHere: claimedHere)
            }
            queue.enqueue(delivery) { [self] result in
                do {
                    switch result {
                    case .success(let outcome):
                        try settle(delivery, outcome, pairing: pairing, authorization: authorization)
                    case .failure(let error):
                        if delivery.claimedHere { handoff.cancelReservation() }
                        throw error
                    }
                    reply(Self.queued)
                } catch {
                    reply.fail(intakeProblem(error, context))
                }
            }
        } catch {
            reply.fail(intakeProblem(error, context))
        }
        relayMetrics.checkedOnListener.increment()
        return true
    }

    /// The answer to an envelope stored (or already stored).
    static let queued = HTTPResponse.json(bytes: Array(#"{"status":"queued"}"#.utf8), status: .accepted)

    /// Checks 1–4: size, strict JSON shape, `v`/`alg` and `aud`, and the `iat` window; the envelope, its `iat`, and
    /// whether the body is the envelope's canonical form (`Envelope.decodeNotingForm`).
    func checkedEnvelope(_ request: HTTPRequest) throws -> (Envelope, iat: Int64, canonical: Bool) {
        guard request.body.count <= Envelope.maxJSONBytes else {
            throw ProtocolError(.tooLarge, "an envelope is at most \(Envelope.maxJSONBytes) bytes")
        }
        let (envelope, canonical) = try Envelope.decodeNotingForm(request.body)
        let c = envelope.context
        guard c.aud == configuration.publicOrigin else { throw ProtocolError(.wrongAudience, "aud is not this relay's origin") }
        let now = clock()
        let iat = Int64(clamping: c.iat)
        guard iat <= now + Self.maxFutureSkew else {
            throw HTTPError(.badRequest, code: .clockSkew, detail: "iat is more than \(Self.maxFutureSkew) seconds in the future")
        }
        guard iat >= now - configuration.maxEnvelopeAge else { throw ProtocolError(.expired, "iat is older than this relay accepts") }
        return (envelope, iat, canonical)
    }

    /// The delivery `make` builds, claimed for this instance's worker when it has room (a place reserved in the
    /// hand-off, given back when `make` throws).
    func claimed(_ make: (_ claimedHere: Bool) throws -> NewDelivery) throws -> NewDelivery {
        let claimedHere = handoff.reserve()
        do {
            return try make(claimedHere)
        } catch {
            if claimedHere { handoff.cancelReservation() }
            throw error
        }
    }

    /// Check 8 (the APNs payload fits) and the delivery to store.
    func newDelivery(_ envelope: Envelope, canonical: Bool, request: HTTPRequest, pairing: PairingRecord, deviceID: String,
                     iat: Int64, claimedHere: Bool) throws -> NewDelivery {
        let c = envelope.context
        let payload = APNsPayload.build(for: envelope, liveActivity: .init(attributesType: configuration.apns.liveActivityAttributesType),
                                        canonicalJSON: canonical ? request.body : nil)
        guard payload.count <= APNsPayload.maxBytes else {
            throw HTTPError(.contentTooLarge, code: .payloadTooLarge,
                            detail: "the APNs payload would be \(payload.count) bytes; the limit is \(APNsPayload.maxBytes)")
        }
        return NewDelivery(
            pairingID: c.pairingID, eventID: c.eventID, outpostID: pairing.outpostID, deviceID: deviceID, kind: .envelope(c.kind),
            activityID: c.activity?.id, activityEvent: c.activity?.event, payload: payload,
            envelope: request.body, envelopeHash: SHA256.hash(request.body).bytes, iat: iat, deadline: iat + configuration.maxEnvelopeAge,
            acceptedMS: clockMS(),
            claimedHere: claimedHere)
    }

    /// What an intake error answers, on either path: refusals counted by reason, storage briefly away a 503.
    func intakeProblem(_ error: any Error, _ context: RequestContext) -> any Error {
        switch error {
        case let error as HTTPError:
            relayMetrics.refused(error.code.rawValue)
            return error
        case let error as ProtocolError:
            relayMetrics.refused(error.code.rawValue)
            return error
        default:
            return DatabaseUnavailableMiddleware().problem(for: error, context: context) ?? error
        }
    }

    /// The pairing (cached) and its device, when the pairing is active.
    func activePairing(_ pairingID: String) async throws -> (PairingRecord, deviceID: String) {
        if let cached = try cachedActivePairing(pairingID) { return cached }
        let pairing = try await pairings.value(for: pairingID) { [pairingStore] in try await pairingStore.load(pairingID) }
        return try Self.active(pairing)
    }

    /// The pairing and its device when the cache holds the pairing and it is active; nil when the cache does not hold it.
    func cachedActivePairing(_ pairingID: String) throws -> (PairingRecord, deviceID: String)? {
        guard let cached = pairings.cached(pairingID) else { return nil }
        return try Self.active(cached)
    }

    /// Check 5: the pairing exists and is active, and its device.
    static func active(_ pairing: PairingRecord?) throws -> (PairingRecord, deviceID: String) {
        guard let pairing else { throw Self.pairingNotFound }
        switch pairing.state {
        case .active: break
        case .ended: throw Self.pairingEnded
        case .pending, .consented: throw HTTPError(.forbidden, code: .pairingNotActive, detail: "the pairing is not confirmed yet")
        }
        guard let deviceID = pairing.deviceID else { throw Self.pairingNotFound }
        return (pairing, deviceID)
    }

    /// The device's authorization, once accounts says the outpost is not blocked and the device may receive push.
    func deliveryAuthorization(_ pairing: PairingRecord, deviceID: String) async throws -> DeviceAuthorization {
        let standing: OutpostStanding
        let authorization: DeviceAuthorization?
        do {
            standing = try await accounts.standing(of: pairing.outpostID, key: pairing.outpostKey)
            if standing.blocked { return try Self.deliveryAuthorization(standing: standing, nil) }
            authorization = try await accounts.authorization(of: deviceID)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw Self.accountsUnavailable
        }
        return try Self.deliveryAuthorization(standing: standing, authorization)
    }

    /// Check 7 on what accounts answered: the outpost is not blocked, the device may receive push and is entitled to.
    static func deliveryAuthorization(standing: OutpostStanding, _ authorization: DeviceAuthorization?) throws -> DeviceAuthorization {
        guard !standing.blocked else {
            throw HTTPError(.forbidden, code: .outpostBlocked, detail: "this outpost is blocked by the relay operator")
        }
        guard let authorization, authorization.active else {
            throw HTTPError(.forbidden, code: .deviceNotAuthorized, detail: "the paired device may not receive push")
        }
        guard authorization.entitled else {
            throw HTTPError(.forbidden, code: .deviceNotEntitled, detail: "the paired device has no push entitlement")
        }
        return authorization
    }

    /// Durable, then answered.
    func enqueue(_ delivery: NewDelivery, pairing: PairingRecord, authorization: DeviceAuthorization) async throws {
        let outcome: EnqueueOutcome
        do {
            outcome = try await queue.enqueue(delivery)
        } catch {
            if delivery.claimedHere { handoff.cancelReservation() }
            throw error
        }
        try settle(delivery, outcome, pairing: pairing, authorization: authorization)
    }

    /// After the durable write: gives back an unused hand-off place, hands a claimed delivery to the worker, or throws
    /// what the outcome answers.
    func settle(_ delivery: NewDelivery, _ outcome: EnqueueOutcome, pairing: PairingRecord,
                authorization: DeviceAuthorization) throws {
        if delivery.claimedHere, outcome != .queued { handoff.cancelReservation() }
        switch outcome {
        case .queued:
            relayMetrics.accepted.increment()
            if let key = try? pairing.outpostPublicKey { outpostKeyTables.stored(key) }
            if delivery.claimedHere {
                handoff.hand(ClaimedDelivery(pairingID: delivery.pairingID, eventID: delivery.eventID, deviceID: delivery.deviceID,
                                             outpostID: pairing.outpostID, outpostKey: pairing.outpostKey, kind: delivery.kind,
                                             activityID: delivery.activityID, activityEvent: delivery.activityEvent,
                                             payload: delivery.payload,
                                             iat: delivery.iat, deadline: delivery.deadline, attempts: 1, acceptedMS: delivery.acceptedMS,
                                             pairingActive: true, checkedAtIntake: authorization))
            }
        case .duplicate:
            relayMetrics.duplicates.increment()
        case .conflict:
            throw HTTPError(.conflict, code: .eventConflict, detail: "another envelope with this event id was accepted for this pairing")
        case .pairingInactive:
            // Ended at another instance since this one cached the pairing.
            pairings.remove(delivery.pairingID)
            throw Self.pairingEnded
        case .rateLimited(let wait):
            throw HTTPError(.tooManyRequests, code: .rateLimited, detail: "too many envelopes from this outpost; slow down",
                            headers: ["Retry-After": String(wait)])
        }
    }
}
