import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
import Synchronization

/// Sends pushes to APNs over HTTP/2 (PROTOCOL.md §11): one multiplexing
/// client per environment holding a few connections, token authentication,
/// and a fresh connection after APNs refuses the provider token.
final class APNsClient: Sendable {
    let configuration: RelayConfiguration.APNs
    let providerToken: APNsProviderToken
    /// The token shared with the other instances on the database (nil: this instance signs its own).
    let sharedToken: SharedProviderToken?
    let window: InFlightWindow
    private let clients: Mutex<[PushEnvironment: any HTTPRequestExecuting]>
    private let logger: Logger
    private let metrics: MetricsRegistry
    private let requestSeconds: Histogram
    /// Series of `mailwake_relay_apns_requests_total` already looked up, by outcome/status/reason.
    private let requestCounters = Mutex<[String: Counter]>([:])

    /// - Parameters:
    ///   - database: where the shared provider token lives (`configuration.sharedToken`); nil: one token per instance.
    ///   - instance: this instance's name (the renewal lease's holder).
    init(configuration: RelayConfiguration.APNs, logger: Logger, metrics: MetricsRegistry, database: PostgresClient? = nil,
         instance: String = "") throws {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        let refreshes = metrics.counter("mailwake_relay_apns_token_refreshes_total", help: "Provider tokens (ES256 JWTs) made.")
        var clock: @Sendable () -> Int64 = WallClock.seconds
        if let path = configuration.testClockFile {
            let file = try TestClockFile(path: path)
            clock = { file.nowSeconds() }
            logger.warning("""
                           APNS_TEST_CLOCK_FILE is set: the provider token's clock is not real time (a test setting; never in \
                           production)
                           """,
                           ["file": .string(path)])
        }
        providerToken = try APNsProviderToken(keyFile: configuration.keyFile, keyID: configuration.keyID, teamID: configuration.teamID,
                                              refreshAfter: configuration.tokenRefresh.components.seconds,
                                              clock: clock, onRefresh: { refreshes.increment() })
        if configuration.sharedToken, let database {
            let store = try ProviderTokenStore(database: database, teamID: configuration.teamID, keyID: configuration.keyID,
                                               instance: instance,
                                               leaseSeconds: 30, signingKey: providerToken.key)
            sharedToken = SharedProviderToken(local: providerToken, store: store, syncInterval: configuration.sharedTokenSync,
                                              logger: logger, metrics: metrics)
        } else {
            sharedToken = nil
        }
        window = InFlightWindow(initial: min(100, configuration.maxInFlight), maximum: configuration.maxInFlight)
        requestSeconds = metrics.histogram("mailwake_relay_apns_request_seconds", help: "Time from sending an APNs request to its answer.")
        var clients: [PushEnvironment: any HTTPRequestExecuting] = [:]
        for environment in PushEnvironment.allCases {
            clients[environment] = try Self.makeClient(configuration, environment: environment, logger: logger, metrics: metrics)
        }
        self.clients = Mutex(clients)
    }

    private static func makeClient(_ c: RelayConfiguration.APNs, environment: PushEnvironment, logger: Logger,
                                   metrics: MetricsRegistry) throws -> any HTTPRequestExecuting {
        var h = HTTPClient.Configuration()
        h.name = "apns-\(environment.rawValue)"
        h.metricsPrefix = "mailwake_relay_apns_client"
        h.httpVersion = .http2
        h.caFile = c.caFile
        h.maxConnectionsPerHost = c.connections
        // APNs allows 1,000 streams a connection once the first request is
        // authenticated; curl may open this many before SETTINGS arrive
        // (nghttp2 holds what is over the server's limit).
        h.maxConcurrentStreams = min(500, max(1, c.maxInFlight / c.connections))
        h.connectTimeout = .seconds(10)
        h.totalTimeout = .seconds(30)
        h.maxResponseBytes = 16 << 10
        switch c.engine {
        case .nghttp2:
            let origin = environment == .production ? c.productionURL : c.sandboxURL
            return try HTTP2Client(origin: origin, configuration: h, logger: logger, metrics: metrics)
        case .libcurl:
            return try HTTPClient(configuration: h, logger: logger, metrics: metrics)
        }
    }

    func shutdown() {
        for client in clients.withLock({ Array($0.values) }) { client.shutdown() }
    }

    /// The origin for an environment.
    func origin(_ environment: PushEnvironment) -> String {
        environment == .production ? configuration.productionURL : configuration.sandboxURL
    }

    /// Sends one push and classifies the answer. The caller holds a window
    /// slot (`window.holdingSlot`) and tells it what came of the request.
    func send(_ request: APNsRequest, with slot: inout InFlightWindow.Slot) async -> APNsResult {
        let result = await perform(request)
        slot.sent(congested: result.congested)
        let reason: String
        switch result {
        case .sent: reason = ""
        case .failed(_, let r, _, _), .retry(_, let r), .renewToken(_, let r): reason = r.rawValue
        }
        let outcome = result.outcomeLabel, status = Self.statusLabel(result)
        let counter = requestCounters.withLock { cache in
            let key = outcome + "/" + status + "/" + reason
            if let c = cache[key] { return c }
            let c = metrics.counter("mailwake_relay_apns_requests_total", help: "APNs requests by outcome, status and reason.",
                                    labels: ["outcome": outcome, "status": status, "reason": reason])
            cache[key] = c
            return c
        }
        counter.increment()
        return result
    }

    private func perform(_ request: APNsRequest) async -> APNsResult {
        let token: APNsProviderToken.Issued
        do {
            if let sharedToken {
                if let fast = sharedToken.usable(now: providerToken.now()) {
                    token = fast
                } else {
                    token = try await sharedToken.token()
                }
            } else {
                token = try providerToken.token()
            }
        } catch {
            logger.error("cannot make an APNs provider token", ["error": .string("\(error)")])
            return .retry(status: nil, reason: .providerTokenUnavailable)
        }
        let client = clients.withLock { $0[request.environment]! }
        let headers: HTTPHeaders = [
            "authorization": "bearer \(token.value)",
            "apns-push-type": request.pushType,
            "apns-topic": request.topic,
            "apns-id": request.eventID,
            "apns-collapse-id": request.eventID,
            "apns-expiration": String(request.expiration),
            "apns-priority": String(request.priority),
        ]
        let started = ContinuousClock.now
        let response: HTTPClient.Response
        do {
            response = try await client.execute(.init(method: .post, url: origin(request.environment) + "/3/device/" + request.deviceToken,
                                                      headers: headers, body: request.payload), logger: nil)
        } catch let error as HTTPClientError {
            // Streams refused by GOAWAY and dropped connections never reached
            // APNs: retry, on another connection. Timeouts may have: the
            // collapse id keeps a duplicate from showing twice.
            return .retry(status: nil, reason: .transport(error.code.rawValue))
        } catch {
            return .retry(status: nil, reason: .transport("other"))
        }
        requestSeconds.observe((ContinuousClock.now - started).seconds)
        let status = Int(response.status.code)
        if status == 200 { return .sent }
        let (reason, timestamp) = Self.parseError(response.body)
        let result = APNsResult.classify(status: status, reason: reason, timestampMS: timestamp)
        var tokenRefused = reason == .tooManyProviderTokenUpdates
        if case .renewToken = result { tokenRefused = true }
        if tokenRefused, let sharedToken {
            // Before the retry is scheduled, so that it carries the token the table holds now.
            if await sharedToken.refused(token, reason: reason.rawValue) { reconnect(request.environment) }
        } else if case .renewToken = result {
            renewTokenAndReconnect(refused: token, environment: request.environment)
        }
        return result
    }

    /// A new token, and a new connection for the environment that refused it
    /// (the old client finishes what it carries, then closes).
    private func renewTokenAndReconnect(refused: APNsProviderToken.Issued, environment: PushEnvironment) {
        guard let renewal = try? providerToken.renew(replacing: refused), renewal.renewed else { return }
        logger.notice("APNs refused the provider token: renewed it and reconnecting", ["environment": .string(environment.rawValue)])
        reconnect(environment)
    }

    /// A new connection for `environment` (the old client finishes what it carries, then closes).
    private func reconnect(_ environment: PushEnvironment) {
        guard let fresh = try? Self.makeClient(configuration, environment: environment, logger: logger, metrics: metrics) else { return }
        let old = clients.withLock { clients in
            let old = clients[environment]
            clients[environment] = fresh
            return old
        }
        if let old {
            Task.detached {
                try? await Task.sleep(for: .seconds(35))
                old.shutdown()
            }
        }
    }

    /// `{"reason": "...", "timestamp": ms}` from an APNs error body.
    static func parseError(_ body: [UInt8]) -> (DeliveryReason, Int64?) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return ("Unknown", nil) }
        let reason = (object["reason"] as? String).map { String($0.prefix(64)) } ?? "Unknown"
        let timestamp = (object["timestamp"] as? NSNumber)?.int64Value
        return (DeliveryReason(rawValue: reason.allSatisfy { $0.isLetter || $0.isNumber } ? reason : "Unknown"), timestamp)
    }

    static func statusLabel(_ result: APNsResult) -> String {
        switch result {
        case .sent: "200"
        case .failed(let s, _, _, _), .renewToken(let s, _): String(s)
        case .retry(let s, _): s.map(String.init) ?? "none"
        }
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
