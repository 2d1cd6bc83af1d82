import Foundation
import MailwakeCore
import MailwakeProtocol

/// Claims due deliveries and sends them to APNs, as many at once as the
/// adaptive window allows; records each outcome (batched) and schedules
/// retries with exponential backoff and jitter until the delivery's deadline.
final class DeliveryWorker: Service {
    var name: String { "delivery-worker" }

    let queue: DeliveryQueue
    let apns: APNsClient
    let accounts: AccountsClient
    let handoff: DeliveryHandoff
    let configuration: RelayConfiguration
    let metrics: RelayMetrics
    let logger: Logger
    let clockMS: @Sendable () -> Int64
    /// Deliveries claimed per query at most.
    let claimBatch = 256
    /// Deliveries in flight without a task (`deliverWithoutTask`).
    let outstanding = OutstandingDeliveries()
    /// How long a stopping worker waits for the outcomes of pushes in flight; those still unanswered are sent
    /// again when their lease runs out (same apns-id and collapse id).
    static let drainTimeout: Duration = .seconds(5)

    init(queue: DeliveryQueue, apns: APNsClient, accounts: AccountsClient, handoff: DeliveryHandoff, configuration: RelayConfiguration,
         metrics: RelayMetrics, logger: Logger, clockMS: @escaping @Sendable () -> Int64) {
        self.queue = queue
        self.apns = apns
        self.accounts = accounts
        self.handoff = handoff
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.clockMS = clockMS
    }

    /// How often the queue is polled for due retries and lapsed leases
    /// when nothing else wakes the worker.
    static let pollInterval: Duration = .milliseconds(500)

    func run() async throws {
        let window = apns.window
        await withDiscardingTaskGroup { group in
            // One ticker for the poll instead of a timer per wait: at a few
            // thousand envelopes a second the worker waits once per envelope,
            // and a timer each time cost a task, two timerfd updates and a
            // wake-up of the dispatch manager thread.
            let doorbell = handoff.doorbell
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.pollInterval)
                    doorbell.ring()
                }
            }
            handoff.sendDirectly { [self] delivery in
                guard window.tryAcquire(upTo: 1) == 1 else { return false }
                if deliverWithoutTask(delivery) { return true }
                window.giveBack(1)
                return false
            }
            var lastClaim = ContinuousClock.now - Self.pollInterval
            var moreDue = true
            while !Task.isCancelled {
                // Deliveries intake stored already claimed for this instance.
                let (handed, claimRequested) = handoff.take(max: claimBatch)
                for delivery in handed {
                    await window.acquire()
                    if !deliverWithoutTask(delivery) { group.addTask { await self.deliver(delivery) } }
                }
                // The shared queue: work other instances queued, retries now
                // due, claims whose lease ran out.
                if moreDue || claimRequested || ContinuousClock.now - lastClaim >= Self.pollInterval {
                    await window.acquire()
                    let slots = 1 + window.tryAcquire(upTo: claimBatch - 1)
                    lastClaim = ContinuousClock.now
                    do {
                        let claimed = try await queue.claim(limit: slots, nowMS: clockMS())
                        window.giveBack(slots - claimed.count)
                        moreDue = claimed.count == slots
                        if !claimed.isEmpty { metrics.claimBatch.observe(Double(claimed.count)) }
                        for delivery in claimed { group.addTask { await self.deliver(delivery) } }
                    } catch {
                        window.giveBack(slots)
                        moreDue = false
                        logger.warning("cannot claim deliveries; retrying", ["error": .string("\(error)")])
                    }
                }
                if handed.isEmpty, !moreDue {
                    await doorbell.wait()
                }
            }
            handoff.sendDirectly(with: nil)
        }
        await outstanding.drained(within: Self.drainTimeout)
    }

    /// Sends one claimed delivery (holding one window slot) and records the outcome.
    func deliver(_ d: ClaimedDelivery) async {
        await record(await attempt(d), of: d)
    }

    /// Stores `completion` (retrying a failed write a few times), counts it, and reports an invalid token.
    func record(_ completion: DeliveryCompletion, of d: ClaimedDelivery) async {
        var stored = false
        for wait in [0, 1, 2, 4, 8] where !stored {
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            do {
                try await queue.complete(completion)
                stored = true
            } catch {
                logger.warning("cannot record a delivery outcome; retrying",
                               ["error": .string("\(error)"), "event_id": .string(d.eventID)])
            }
        }
        // Not stored: the lease runs out and the delivery is sent again
        // (same apns-id and collapse id, so the device shows it once).
        guard stored else { return }
        count(completion, of: d)
        // After the outcome is stored, holding no window slot; the worker waits for it at shutdown.
        if let invalid = completion.invalidToken { await report(invalid, deviceID: d.deviceID) }
    }

    /// Counts a stored outcome.
    private func count(_ completion: DeliveryCompletion, of d: ClaimedDelivery) {
        if completion.status.isFinal { metrics.deliveries[completion.status.rawValue]?.increment() }
        if completion.status == .sent {
            metrics.acceptToSent.observe(Double(max(0, completion.atMS - d.acceptedMS)) / 1000)
        }
    }

    /// Sends a delivery intake checked a moment ago (holding one window slot) without a task: the push is answered
    /// on the APNs client's thread and the outcome recorded by the completions' group commit, so nothing wakes the
    /// pool per delivery. False, with the slot still held, for what needs a task: a delivery without intake's
    /// check, a Live Activity (its token is looked up; a refused start goes out as an alert), one that cannot be
    /// sent (its outcome is recorded on the task path), or a provider token that must be awaited.
    func deliverWithoutTask(_ d: ClaimedDelivery) -> Bool {
        guard d.pairingActive, let authorization = d.checkedAtIntake, authorization.mayReceivePush,
              let token = authorization.apnsToken, d.kind != .envelope(.liveActivity), clockMS() < d.deadline * 1000
        else { return false }
        let window = apns.window
        outstanding.begin()
        let sent = apns.send(apnsRequest(for: d, token: token, authorization: authorization), with: InFlightWindow.Slot(window: window)) {
            [self] result in
            window.giveBack(1)
            let completion = completion(of: d, after: result, token: token)
            queue.complete(completion) { [self] stored in
                switch stored {
                case .success:
                    count(completion, of: d)
                    guard let invalid = completion.invalidToken else { return outstanding.end() }
                    Task {
                        await report(invalid, deviceID: d.deviceID)
                        outstanding.end()
                    }
                case .failure:
                    // The task path's retries, on a task of its own.
                    Task {
                        await record(completion, of: d)
                        outstanding.end()
                    }
                }
            }
        }
        if sent { metrics.attemptsWithoutTask.increment() } else { outstanding.end() }
        return sent
    }

    /// Tells accounts that APNs called the device's token invalid (accounts clears it unless it was replaced since).
    private func report(_ invalid: DeliveryCompletion.InvalidToken, deviceID: String) async {
        do {
            try await accounts.reportInvalidToken(deviceID: deviceID, token: invalid.token, timestampMS: invalid.timestampMS)
        } catch {
            logger.warning("cannot report an invalid APNs token to accounts",
                           ["device_id": .string(deviceID), "error": .string("\(error)")])
        }
    }

    /// One attempt with the window slot the worker took for it: checks, the APNs request, and what to record.
    func attempt(_ d: ClaimedDelivery) async -> DeliveryCompletion {
        metrics.attemptsOnTask.increment()
        return await apns.window.holdingSlot { slot in await attempt(d, with: &slot) }
    }

    /// One attempt holding `slot` (given back by `holdingSlot` on every path).
    private func attempt(_ d: ClaimedDelivery, with slot: inout InFlightWindow.Slot) async -> DeliveryCompletion {
        guard d.pairingActive else {
            return finished(d, .failed, reason: .pairingEnded)
        }
        guard clockMS() < d.deadline * 1000 else {
            return finished(d, .expired, reason: .deadlinePassed)
        }
        // An outpost the operator blocked at accounts gets nothing more
        // delivered, whatever it queued before the block (cached for
        // ACCOUNTS_CACHE_TTL, like intake's check). A delivery intake handed
        // over itself was checked a moment ago, against the same cache.
        if d.checkedAtIntake == nil {
            do {
                guard !(try await accounts.standing(of: d.outpostID, key: d.outpostKey)).blocked else {
                    return finished(d, .failed, reason: .outpostBlocked)
                }
            } catch {
                return retried(d, apnsStatus: nil, reason: .accountsUnavailable, soon: false)
            }
        }
        let target: (authorization: DeviceAuthorization, token: String?)
        do {
            target = try await resolveTarget(d)
        } catch {
            return retried(d, apnsStatus: nil, reason: .accountsUnavailable, soon: false)
        }
        guard target.authorization.mayReceivePush else {
            return finished(d, .failed, reason: target.authorization.active ? .deviceNotEntitled : .deviceNotAuthorized)
        }
        guard let token = target.token else {
            return finished(d, .failed, reason: .noDeviceToken)
        }
        let request = apnsRequest(for: d, token: token, authorization: target.authorization)
        let result = await apns.send(request, with: &slot)
        if case .retry(429?, .tooManyRequests) = result, d.kind == .envelope(.liveActivity), d.activityEvent == .start {
            // Apple's push-to-start budget is spent: the code goes out as a time-sensitive alert instead.
            return await alertInstead(of: d, request: request, deviceToken: target.authorization.apnsToken, slot: &slot)
        }
        return completion(of: d, after: result, token: token)
    }

    /// The APNs request for `d` to `token`.
    private func apnsRequest(for d: ClaimedDelivery, token: String, authorization: DeviceAuthorization) -> APNsRequest {
        // A relay-authored alert (PROTOCOL.md §14) travels like a notification: push type alert, the bundle id as topic.
        let kind = d.kind.apnsKind
        return APNsRequest(
            deviceToken: token, environment: authorization.apnsEnvironment,
            pushType: APNsPayload.pushType(for: kind), topic: APNsPayload.topic(for: kind, bundleID: configuration.apns.bundleID),
            eventID: d.eventID, expiration: d.iat + configuration.maxEnvelopeAge,
            priority: APNsPayload.priority(kind: kind, activityEvent: d.activityEvent), payload: d.payload)
    }

    /// What to record after APNs answered `d`'s push to `token` with `result`.
    private func completion(of d: ClaimedDelivery, after result: APNsResult, token: String) -> DeliveryCompletion {
        switch result {
        case .sent:
            return finished(d, .sent, apnsStatus: 200, reason: nil)
        case .failed(let status, let reason, let tokenInvalid, let timestamp):
            var failed = finished(d, .failed, apnsStatus: status, reason: reason)
            if tokenInvalid { failed.invalidToken = .init(token: token, timestampMS: timestamp ?? clockMS()) }
            return failed
        case .retry(let status, let reason):
            return retried(d, apnsStatus: status, reason: reason, soon: status == nil && reason.neverReachedAPNs)
        case .renewToken(let status, let reason):
            return retried(d, apnsStatus: status, reason: reason, soon: d.attempts <= 3)
        }
    }

    /// A final outcome of `d`, now.
    private func finished(_ d: ClaimedDelivery, _ status: DeliveryStatus, apnsStatus: Int? = nil,
                          reason: DeliveryReason?) -> DeliveryCompletion {
        DeliveryCompletion(pairingID: d.pairingID, eventID: d.eventID, status: status, nextAttemptMS: 0, apnsStatus: apnsStatus,
                           reason: reason, atMS: clockMS())
    }

    /// `d` queued again after the backoff, or expired when the next attempt would be past its deadline.
    private func retried(_ d: ClaimedDelivery, apnsStatus: Int?, reason: DeliveryReason, soon: Bool) -> DeliveryCompletion {
        let now = clockMS()
        let next = now + Self.backoffMS(attempts: d.attempts, soon: soon)
        guard next < d.deadline * 1000 else { return finished(d, .expired, apnsStatus: apnsStatus, reason: reason) }
        return DeliveryCompletion(pairingID: d.pairingID, eventID: d.eventID, status: .queued, nextAttemptMS: next,
                                  apnsStatus: apnsStatus, reason: reason, atMS: now)
    }

    /// Sends a refused Live Activity `start` as a time-sensitive alert to the device's own token (same envelope, same
    /// apns-id): `sent` with reason `push_to_start_refused_alerted`, or the start's refusal when that fails too.
    private func alertInstead(of d: ClaimedDelivery, request: APNsRequest, deviceToken: String?,
                              slot: inout InFlightWindow.Slot) async -> DeliveryCompletion {
        guard let deviceToken, let envelope = Self.envelope(inLiveActivityPayload: d.payload) else {
            return finished(d, .failed, apnsStatus: 429, reason: .tooManyRequests)
        }
        var alert = request
        alert.deviceToken = deviceToken
        alert.pushType = APNsPayload.pushType(for: .notification)
        alert.topic = APNsPayload.topic(for: .notification, bundleID: configuration.apns.bundleID)
        alert.priority = 10
        alert.payload = APNsPayload.timeSensitiveAlert(for: envelope)
        metrics.liveActivityAlerts.increment()
        switch await apns.send(alert, with: &slot) {
        case .sent: return finished(d, .sent, apnsStatus: 200, reason: .pushToStartRefusedAlerted)
        default: return finished(d, .failed, apnsStatus: 429, reason: .tooManyRequests)
        }
    }

    /// The envelope inside a stored Live Activity payload (`aps.content-state.mw`).
    static func envelope(inLiveActivityPayload payload: [UInt8]) -> Envelope? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
              let state = (object["aps"] as? [String: Any])?["content-state"] as? [String: Any], let mw = state["mw"],
              let bytes = try? JSONSerialization.data(withJSONObject: mw)
        else { return nil }
        return try? Envelope.decode(Array(bytes))
    }

    /// The device's authorization and the APNs token this delivery goes to.
    private func resolveTarget(_ d: ClaimedDelivery) async throws -> (authorization: DeviceAuthorization, token: String?) {
        let found: DeviceAuthorization?
        if let checked = d.checkedAtIntake { found = checked } else { found = try await accounts.authorization(of: d.deviceID) }
        guard let authorization = found else {
            return (.unknown(deviceID: d.deviceID), nil)
        }
        switch (d.kind, d.activityEvent) {
        case (.envelope(.liveActivity), .start?):
            return (authorization, authorization.pushToStartToken)
        case (.envelope(.liveActivity), _):
            return (authorization, try await accounts.activityToken(deviceID: d.deviceID, activityID: d.activityID ?? ""))
        default:
            return (authorization, authorization.apnsToken)
        }
    }

    /// Milliseconds until the next attempt: exponential from 1 s (capped at
    /// 5 minutes) with jitter in [50 %, 100 %]; `soon` (the request never
    /// reached APNs) retries within a quarter second.
    static func backoffMS(attempts: Int, soon: Bool) -> Int64 {
        if soon { return Int64.random(in: 20...250) }
        let exponent = min(max(attempts - 1, 0), 9)
        let ceiling = min(Int64(1000) << exponent, 300_000)
        return Int64.random(in: ceiling / 2...ceiling)
    }
}
