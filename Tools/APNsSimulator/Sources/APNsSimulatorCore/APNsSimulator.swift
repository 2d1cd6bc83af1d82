import Foundation
public import MailwakeCore
import MailwakeProtocol
import Synchronization

/// Apple's provider API as the relay sees it: answers `POST /3/device/<token>`
/// like APNs (checks, status, `apns-id`, `{"reason"}`), injects the failures
/// it is told to, and records every request; `/_sim/…` is its control API
/// (see `APNsSimulator+Admin.swift` and docs/apns-simulator.md).
///
/// `handle` is called concurrently from the transport's connection threads;
/// every piece of state is behind its own lock.
public final class APNsSimulator: Sendable {
    public let configuration: SimulatorConfiguration
    public let validator: RequestValidator
    public let behaviours = BehaviourTable()
    public let deliveries: DeliveryLog
    public let statistics = SimulatorStatistics()
    public let offline = OfflineDevices()
    /// Distinct provider tokens and refreshes per team and key, and the 20-minute rule.
    public let providerTokens: ProviderTokenLedger
    /// Milliseconds added to `clock` (`POST /_sim/clock`): token ages and the 20-minute rule follow it.
    let clockOffsetMS = Atomic<Int64>(0)
    let settingsState: Mutex<SimulatorSettings>
    let transportState = Mutex<(any SimulatorTransport)?>(nil)
    let logger: Logger
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - clock: milliseconds since 1970 (the wall clock by default).
    public init(configuration: SimulatorConfiguration, logger: Logger,
                clock: @escaping @Sendable () -> Int64 = WallClock.milliseconds) throws {
        self.configuration = configuration
        let verifier = ProviderTokenVerifier(keyID: configuration.keyID, teamID: configuration.teamID,
                                             publicKey: configuration.publicKey, maxAge: configuration.tokenMaxAge)
        validator = RequestValidator(bundleID: configuration.topic, verifier: verifier, requirePushType: configuration.strict)
        providerTokens = ProviderTokenLedger(minimumUpdateInterval: configuration.minimumTokenUpdateInterval)
        deliveries = try DeliveryLog(capacity: configuration.keepDeliveries, recordPath: configuration.recordPath)
        settingsState = Mutex(configuration.settings)
        self.logger = logger
        self.clock = clock
    }

    /// The simulated time in milliseconds since 1970: `clock` plus the offset set through `POST /_sim/clock`.
    public func nowMS() -> Int64 { clock() + clockOffsetMS.load(ordering: .relaxed) }

    /// Moves the simulated clock to `offsetMS` milliseconds ahead of `clock` (negative: behind).
    public func setClockOffset(ms offsetMS: Int64) { clockOffsetMS.store(offsetMS, ordering: .relaxed) }

    /// Connects the server that carries the requests (for the stream limit,
    /// GOAWAY and connection counts). `detach()` before stopping it.
    public func attach(_ transport: any SimulatorTransport) { transportState.withLock { $0 = transport } }

    public func detach() { transportState.withLock { $0 = nil } }

    /// The settings in force now.
    public var settings: SimulatorSettings { settingsState.withLock { $0 } }

    /// Answers one request.
    public func handle(_ request: SimulatorRequest) -> SimulatorResponse {
        if request.path.hasPrefix("/_sim/") { return handleAdmin(request) }
        let nowMS = nowMS()
        let settings = self.settings
        var inspection = validator.inspect(request, now: nowMS / 1000)
        if let token = inspection.providerToken, let authorization = request.authorization,
           let jwt = ProviderTokenVerifier.bearerToken(authorization),
           !providerTokens.admit(jwt: jwt, teamID: token.teamID, keyID: token.keyID, nowMS: nowMS) {
            inspection.refusal = .tooManyProviderTokenUpdates
        }
        var status = 200
        var reason: String?
        var timestamp: Int64?
        var delay = settings.latencyMS
        if let refusal = inspection.refusal {
            status = refusal.status
            reason = refusal.rawValue
        } else if let token = inspection.deviceToken, let behaviour = behaviours.take(token: token) {
            status = behaviour.status
            reason = status == 200 ? nil : behaviour.reason ?? APNsReason.defaultReason(for: status)
            timestamp = behaviour.timestamp
            if let latency = behaviour.latencyMS { delay = latency }
        } else if !settings.rates.isEmpty, let injected = settings.rates.status(forDraw: Double.random(in: 0..<1)) {
            status = injected
            reason = APNsReason.defaultReason(for: injected)
        }
        if status == 410 { timestamp = timestamp ?? nowMS }

        let apnsID = request.apnsID.flatMap { RequestValidator.isUUID($0) ? $0 : nil } ?? UUID().uuidString.lowercased()
        var body: [UInt8] = []
        if let reason {
            var w = JSONWriter(capacity: 64)
            w.beginObject()
            w.string("reason", reason)
            if let timestamp { w.int("timestamp", timestamp) }
            w.endObject()
            body = w.bytes
        }

        let token = inspection.providerToken
        var delivery = Delivery(
            seq: 0, receivedAtMS: nowMS, connection: request.connection, stream: request.stream,
            deviceToken: inspection.deviceToken, pushType: request.pushType, topic: request.topic,
            priority: request.priority.flatMap { Int($0) }, apnsID: request.apnsID, collapseID: request.collapseID,
            expiration: request.expiration.flatMap { Int64($0) }, jwtKeyID: token?.keyID, jwtIssuer: token?.teamID,
            jwtIssuedAt: token?.issuedAt, payload: String(decoding: request.body, as: UTF8.self), status: status, reason: reason)
        if status == 200, offline.holdIfOffline(delivery) { delivery.held = true }
        if !deliveries.append(delivery) { logger.warning("cannot append to the record file; recording to memory only") }
        statistics.count(status: status, reason: reason, connection: request.connection)
        if let refusal = inspection.refusal {
            var metadata: [String: LogValue] = ["status": .int(status), "reason": .string(refusal.rawValue),
                                                "connection": .int(request.connection)]
            if refusal == .invalidProviderToken, let why = validator.verifier.explain(authorization: request.authorization) {
                metadata["detail"] = .string(why)
            }
            logger.debug("request refused", metadata)
        }
        let goaway = settings.goawayAfter > 0 && request.connectionRequests >= settings.goawayAfter
        return SimulatorResponse(status: status, apnsID: apnsID, body: body, delayMS: delay, goaway: goaway)
    }
}
