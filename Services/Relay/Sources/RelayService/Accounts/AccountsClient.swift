import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakeProtocol

/// The relay's side of accounts' internal API (service token), with a short
/// cache of device authorizations, outpost standings and activity tokens.
final class AccountsClient: Sendable {
    let configuration: RelayConfiguration.Accounts
    let http: HTTPClient
    let authorizations: TTLCache<String, DeviceAuthorization?>
    let outposts: TTLCache<String, OutpostStanding>
    let activityTokens: TTLCache<String, String?>
    let cacheHits: Counter
    let cacheMisses: Counter
    let logger: Logger
    /// Cache misses waiting for accounts: those that arrive while a call is
    /// out go together in the next one (`POST /internal/v1/authorizations`).
    private let authorizationBatches: BatchCommitter<String, DeviceAuthorization?>
    /// Devices asked about in one call at most (accounts takes up to 500).
    static let authorizationBatch = 256

    init(configuration: RelayConfiguration.Accounts, logger: Logger, metrics: MetricsRegistry) throws {
        self.configuration = configuration
        self.logger = logger
        var c = HTTPClient.Configuration()
        c.name = "accounts"
        c.httpVersion = configuration.url.hasPrefix("https:") ? .http2 : .http1_1
        c.caFile = configuration.caFile
        c.totalTimeout = .seconds(5)
        c.connectTimeout = .seconds(3)
        c.maxConnectionsPerHost = 16
        let http = try HTTPClient(configuration: c, logger: logger, metrics: metrics)
        self.http = http
        authorizationBatches = BatchCommitter(maxBatch: Self.authorizationBatch, maxConcurrentFlushes: 2) { ids in
            try await Self.fetchAuthorizations(ids, http: http, configuration: configuration)
        }
        let ttl = configuration.cacheTTL
        authorizations = TTLCache(ttl: ttl)
        outposts = TTLCache(ttl: ttl)
        activityTokens = TTLCache(ttl: ttl)
        cacheHits = metrics.counter("mailwake_relay_accounts_cache_total", help: "Look-ups of accounts data by cache result.",
                                    labels: ["result": "hit"])
        cacheMisses = metrics.counter("mailwake_relay_accounts_cache_total", help: "Look-ups of accounts data by cache result.",
                                      labels: ["result": "miss"])
    }

    func shutdown() { http.shutdown() }

    /// The device's authorization, nil when accounts does not know it.
    func authorization(of deviceID: String) async throws -> DeviceAuthorization? {
        if let cached = authorizations.cached(deviceID, hit: cacheHits) { return cached }
        return try await authorizations.value(for: deviceID, hit: cacheHits, miss: cacheMisses) { [authorizationBatches] in
            try await authorizationBatches.submit(deviceID)
        }
    }

    /// One call for a batch of devices; nil for each device accounts does not know.
    private static func fetchAuthorizations(_ ids: [String], http: HTTPClient, configuration: RelayConfiguration.Accounts) async throws
        -> [DeviceAuthorization?] {
        var w = JSONWriter(capacity: 32 + ids.count * 25)
        w.beginObject()
        w.beginArray("device_ids")
        for id in Set(ids) { w.string(nil, id) }
        w.endArray()
        w.endObject()
        let response = try await request(.post, "/internal/v1/authorizations", body: w.bytes, expect: [.ok], http: http,
                                         configuration: configuration)
        struct List: Decodable { var authorizations: [DeviceAuthorization] }
        let found = try decode(List.self, response).authorizations
        let byID = Dictionary(found.map { ($0.deviceID, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.map { byID[$0] }
    }

    /// The outpost's standing, registering it at accounts on first contact.
    func register(outpostKey: [UInt8], outpostID: String) async throws -> OutpostStanding {
        let body = Array(#"{"outpost_key":"\#(Base64URL.encode(outpostKey))"}"#.utf8)
        let response = try await call(.post, "/internal/v1/outposts", body: body)
        let standing = try Self.decode(OutpostStanding.self, response)
        guard standing.outpostID == outpostID else { throw AccountsError(message: "accounts named another outpost id") }
        outposts.store(standing, for: outpostID)
        return standing
    }

    /// The outpost's standing and the device's authorization when both are cached and fresh; nil otherwise (nothing is loaded).
    func cached(outpostID: String, deviceID: String) -> (standing: OutpostStanding, authorization: DeviceAuthorization?)? {
        guard let standing = outposts.cached(outpostID), let authorization = authorizations.cached(deviceID) else { return nil }
        cacheHits.increment(by: 2)
        return (standing, authorization)
    }

    /// The outpost's standing (cached); registers it if accounts forgot it.
    func standing(of outpostID: String, key: [UInt8]) async throws -> OutpostStanding {
        if let cached = outposts.cached(outpostID, hit: cacheHits) { return cached }
        return try await outposts.value(for: outpostID, hit: cacheHits, miss: cacheMisses) { [self] in
            let response = try await call(.get, "/internal/v1/outposts/\(outpostID)")
            if response.status == .notFound { return try await register(outpostKey: key, outpostID: outpostID) }
            return try Self.decode(OutpostStanding.self, response)
        }
    }

    /// The update token of a Live Activity, nil when the App never sent one.
    func activityToken(deviceID: String, activityID: String) async throws -> String? {
        let key = deviceID + "/" + activityID
        if let cached = activityTokens.cached(key, hit: cacheHits) { return cached }
        return try await activityTokens.value(for: key, hit: cacheHits, miss: cacheMisses) { [self] in
            let response = try await call(.get, "/internal/v1/devices/\(deviceID)/live-activities/\(activityID)")
            if response.status == .notFound { return nil }
            struct Token: Decodable { var token: String }
            return try Self.decode(Token.self, response).token
        }
    }

    /// APNs said the token is gone: tell accounts (it clears the token unless
    /// replaced since `timestampMS`) and forget the cached authorization.
    func reportInvalidToken(deviceID: String, token: String, timestampMS: Int64) async throws {
        authorizations.remove(deviceID)
        let body = Array(#"{"apns_token":"\#(token)","timestamp":\#(timestampMS)}"#.utf8)
        _ = try await call(.post, "/internal/v1/devices/\(deviceID)/apns-token-invalid", body: body, expect: [.ok])
    }

    /// Sends delivery outcomes to accounts' diagnostics (at most 500).
    func sendDiagnostics(_ body: [UInt8]) async throws {
        _ = try await call(.post, "/internal/v1/diagnostics", body: body, expect: [.accepted])
    }

    /// Whether accounts answers at all (readiness).
    func isReachable() async -> Bool {
        guard let r = try? await http.execute(.init(method: .get, url: configuration.url + "/internal/v1/outposts/-",
                                                    headers: ["Authorization": "Bearer \(configuration.token)"], timeout: .seconds(2)))
        else { return false }
        return r.status == .notFound || r.status == .ok
    }

    private func call(_ method: HTTPMethod, _ path: String, body: [UInt8]? = nil,
                      expect: Set<HTTPStatus> = [.ok, .created, .notFound]) async throws -> HTTPClient.Response {
        try await Self.request(method, path, body: body, expect: expect, http: http, configuration: configuration)
    }

    private static func request(_ method: HTTPMethod, _ path: String, body: [UInt8]?, expect: Set<HTTPStatus>, http: HTTPClient,
                                configuration: RelayConfiguration.Accounts) async throws -> HTTPClient.Response {
        var headers: HTTPHeaders = ["Authorization": "Bearer \(configuration.token)"]
        if body != nil { headers.add("Content-Type", "application/json") }
        let response: HTTPClient.Response
        do {
            response = try await http.execute(.init(method: method, url: configuration.url + path, headers: headers, body: body))
        } catch {
            throw AccountsError(message: "unreachable (\(error))")
        }
        guard expect.contains(response.status) else {
            throw AccountsError(message: "\(method.rawValue) answered \(response.status.code)")
        }
        return response
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ response: HTTPClient.Response) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw AccountsError(message: "unreadable answer (\(type))")
        }
    }
}
