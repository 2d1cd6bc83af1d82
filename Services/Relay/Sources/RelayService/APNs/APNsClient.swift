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
        count(result)
        return result
    }

    /// Sends one push without a task when the provider token is at hand: `completion` gets the classified answer,
    /// once, on the HTTP/2 client's thread, after `slot` has been told what came of it (the caller still gives the
    /// slot back). False, with nothing sent, when the token must be awaited first (`send(_:with:)` then).
    func send(_ request: APNsRequest, with slot: InFlightWindow.Slot,
              then completion: @escaping @Sendable (APNsResult) -> Void) -> Bool {
        guard let token = tokenAtHand() else { return false }
        let window = slot.window
        let started = ContinuousClock.now
        client(request.environment).execute(httpRequest(request, token: token), logger: nil) { [self] answer in
            let done: @Sendable (APNsResult) -> Void = { [self] result in
                window.record(congested: result.congested)
                count(result)
                completion(result)
            }
            let (result, refusedToken) = classify(answer, started: started)
            if refusedToken {
                Task { done(await handleRefusal(result, token: token, environment: request.environment)) }
            } else {
                done(result)
            }
        }
        return true
    }

    /// Counts one classified answer (`mailwake_relay_apns_requests_total`).
    private func count(_ result: APNsResult) {
        let reason = result.reasonLabel
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
    }

    private func perform(_ request: APNsRequest) async -> APNsResult {
        let token: APNsProviderToken.Issued
        do {
            if let ready = tokenAtHand() {
                token = ready
            } else if let sharedToken {
                token = try await sharedToken.token()
            } else {
                token = try providerToken.token()
            }
        } catch {
            logger.error("cannot make an APNs provider token", ["error": .string("\(error)")])
            return .retry(status: nil, reason: .providerTokenUnavailable)
        }
        let started = ContinuousClock.now
        let answer: Result<HTTPClient.Response, any Error>
        do {
            answer = .success(try await client(request.environment).execute(httpRequest(request, token: token), logger: nil))
        } catch {
            answer = .failure(error)
        }
        let (result, refusedToken) = classify(answer, started: started)
        return refusedToken ? await handleRefusal(result, token: token, environment: request.environment) : result
    }

    /// The provider token to send with now, without waiting: the shared one while it is usable, or this
    /// instance's own; nil when it must be awaited (or fails, which the awaiting path reports).
    private func tokenAtHand() -> APNsProviderToken.Issued? {
        if let sharedToken { return sharedToken.usable(now: providerToken.now()) }
        return try? providerToken.token()
    }

    /// The client for `environment` now (a refused token replaces it).
    private func client(_ environment: PushEnvironment) -> any HTTPRequestExecuting {
        clients.withLock { $0[environment]! }
    }

    /// The HTTP/2 request for one push, authenticated with `token`.
    private func httpRequest(_ request: APNsRequest, token: APNsProviderToken.Issued) -> HTTPClient.Request {
        var headers = HTTPHeaders()
        headers.reserveCapacity(7)
        headers.add("authorization", token.authorization)
        headers.add("apns-push-type", request.pushType)
        headers.add("apns-topic", request.topic)
        headers.add("apns-id", request.eventID)
        headers.add("apns-collapse-id", request.eventID)
        headers.add("apns-expiration", String(request.expiration))
        headers.add("apns-priority", String(request.priority))
        return .init(method: .post, url: origin(request.environment) + "/3/device/" + request.deviceToken, headers: headers,
                     body: request.payload)
    }

    /// What an answer (or its absence) means, and whether APNs refused the provider token (`handleRefusal` then).
    private func classify(_ answer: Result<HTTPClient.Response, any Error>, started: ContinuousClock.Instant)
        -> (APNsResult, refusedToken: Bool) {
        let response: HTTPClient.Response
        switch answer {
        case .success(let r):
            response = r
        case .failure(let error as HTTPClientError):
            // Streams refused by GOAWAY and dropped connections never reached
            // APNs: retry, on another connection. Timeouts may have: the
            // collapse id keeps a duplicate from showing twice.
            return (.retry(status: nil, reason: .transport(error.code.rawValue)), false)
        case .failure:
            return (.retry(status: nil, reason: .transport("other")), false)
        }
        requestSeconds.observe((ContinuousClock.now - started).seconds)
        let status = Int(response.status.code)
        if status == 200 { return (.sent, false) }
        let (reason, timestamp) = Self.parseError(response.body)
        let result = APNsResult.classify(status: status, reason: reason, timestampMS: timestamp)
        var tokenRefused = reason == .tooManyProviderTokenUpdates
        if case .renewToken = result { tokenRefused = true }
        return (result, tokenRefused)
    }

    /// After APNs refused `token`: the shared token is marked refused (or this instance's renewed) and the
    /// environment reconnected, before the retry is scheduled, so that it carries the token in use now.
    private func handleRefusal(_ result: APNsResult, token: APNsProviderToken.Issued, environment: PushEnvironment) async -> APNsResult {
        if let sharedToken {
            if await sharedToken.refused(token, reason: result.reasonLabel) { reconnect(environment) }
        } else if case .renewToken = result {
            renewTokenAndReconnect(refused: token, environment: environment)
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
        return (DeliveryReason(rawValue: isReasonWord(reason) ? reason : "Unknown"), timestamp)
    }

    /// Whether `reason` reads as one of APNs' reasons: 1 to 64 ASCII letters and digits (Unicode letters would make
    /// a 64-character reason up to 256 bytes, over what accounts' diagnostics take).
    static func isReasonWord(_ reason: String) -> Bool {
        (1...64).contains(reason.utf8.count) && reason.utf8.allSatisfy { c in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
        }
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
