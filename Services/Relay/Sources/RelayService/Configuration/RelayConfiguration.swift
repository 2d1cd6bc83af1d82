public import MailwakeCore
import Foundation
import MailwakeServiceSupport
public import MailwakePostgres
public import MailwakeHTTPServer

/// The typed configuration of one relay instance.
public struct RelayConfiguration: Sendable {
    /// Where and how the relay reaches APNs.
    public struct APNs: Sendable {
        /// The HTTP/2 client pushes go through.
        public enum Engine: String, Sendable, CaseIterable {
            /// `HTTP2Client`: libnghttp2 and OpenSSL, one thread per environment.
            case nghttp2
            /// `HTTPClient`: libcurl's multi interface.
            case libcurl
        }

        /// The `.p8` key file (PKCS#8 PEM).
        public var keyFile: String
        public var keyID: String
        public var teamID: String
        public var bundleID: String
        /// Origins by environment.
        public var productionURL: String
        public var sandboxURL: String
        /// A CA bundle trusted alone for both origins (the simulator's).
        public var caFile: String?
        /// HTTP/2 connections per environment.
        public var connections: Int
        /// The HTTP/2 client. Default `.nghttp2`.
        public var engine: Engine = .nghttp2
        /// Upper bound of the adaptive in-flight window.
        public var maxInFlight: Int
        /// Age at which the provider token is replaced.
        public var tokenRefresh: Duration
        /// `attributes-type` of Live Activity push-to-start payloads.
        public var liveActivityAttributesType: String
        /// One provider token for every instance on the database (`apns_provider_tokens`), renewed under a lease.
        public var sharedToken = true
        /// How often an instance reads the shared token besides when its copy is due or refused.
        public var sharedTokenSync: Duration = .seconds(30)
        /// Test only: the provider token's clock is real time plus the seconds in this file's first 8 bytes.
        public var testClockFile: String?

        public init(keyFile: String, keyID: String, teamID: String, bundleID: String,
                    productionURL: String = "https://api.push.apple.com", sandboxURL: String = "https://api.sandbox.push.apple.com",
                    caFile: String? = nil, connections: Int = 2, engine: Engine = .nghttp2, maxInFlight: Int = 1000,
                    tokenRefresh: Duration = .seconds(2400),
                    liveActivityAttributesType: String = "MailwakeCodeAttributes", sharedToken: Bool = true,
                    testClockFile: String? = nil) {
            self.sharedToken = sharedToken
            self.testClockFile = testClockFile
            self.keyFile = keyFile
            self.keyID = keyID
            self.teamID = teamID
            self.bundleID = bundleID
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.caFile = caFile
            self.connections = connections
            self.engine = engine
            self.maxInFlight = maxInFlight
            self.tokenRefresh = tokenRefresh
            self.liveActivityAttributesType = liveActivityAttributesType
        }
    }

    /// How the relay reaches accounts' internal API.
    public struct Accounts: Sendable {
        public var url: String
        public var token: String
        public var caFile: String?
        /// How long an authorization is reused.
        public var cacheTTL: Duration
        /// How often reachability is checked (a metric and a log line, not readiness).
        public var checkInterval: Duration

        public init(url: String, token: String, caFile: String? = nil, cacheTTL: Duration = .seconds(30),
                    checkInterval: Duration = .seconds(10)) {
            self.checkInterval = checkInterval
            self.url = url
            self.token = token
            self.caFile = caFile
            self.cacheTTL = cacheTTL
        }
    }

    public var listen: ListenAddress
    public var adminListen: ListenAddress
    public var publicOrigin: String
    public var databaseURL: String
    /// How long `serve` and `migrate` retry connecting to PostgreSQL at start.
    public var databaseStartTimeout: Duration = .seconds(120)
    /// Concurrent connections one IP address may hold on the public listener; 0: no limit.
    public var perIPConnectionLimit: Int = 128
    /// What serves the public listener.
    public var httpEngine: HTTPServer.Configuration.Engine = .epoll
    public var tlsCertificate: String?
    public var tlsKey: String?
    public var allowPlainHTTP: Bool
    public var accounts: Accounts
    public var apns: APNs
    public var operatorToken: String
    /// Oldest accepted `iat`, the APNs expiration and the retry deadline, in seconds.
    public var maxEnvelopeAge: Int64
    public var rateLimit: Int
    public var rateBurst: Int
    /// Seconds finished deliveries are kept; at least `maxEnvelopeAge`.
    public var retention: Int64
    /// Pairing registrations one outpost may make per minute; 0: no limit.
    public var pairingRateOutpost: Int = 10
    /// Pairing registrations one client address may attempt per minute; 0: no limit.
    public var pairingRateAddress: Int = 30
    /// Seconds a device's catch-up log keeps an envelope (PROTOCOL.md §12); 0: none kept.
    public var catchupRetention: Int64 = 72 * 3600
    /// Envelopes a device's catch-up log keeps at most; 0: none kept.
    public var catchupLimit: Int = 1000
    /// Seconds without a heartbeat after which an outpost's devices get `outpost-silent` (PROTOCOL.md §14).
    public var outpostSilence: Int64 = 600
    /// Whether the relay raises outpost alerts (silent, back, mailbox failing); heartbeats are recorded either way.
    public var silenceAlerts: Bool = true
    /// Outpost keys that may hold a precomputed verify table at once; 0: none.
    public var verifyTables: Int = 64
    /// New envelopes stored within 10 minutes that earn an outpost key its verify table (not a setting: tests lower it).
    /// A table costs about 2.2 ms to build and saves about 60 µs a check: it pays for itself after about 37 checks.
    public var verifyTableThreshold: Int = 32
    /// Seconds a claim lasts.
    public var lease: Int64
    public var instanceName: String
    public var logLevel: LogLevel

    public init(listen: ListenAddress = .init(host: "127.0.0.1", port: 8444),
                adminListen: ListenAddress = .init(host: "127.0.0.1", port: 9444),
                publicOrigin: String, databaseURL: String, tlsCertificate: String? = nil, tlsKey: String? = nil,
                allowPlainHTTP: Bool = false,
                accounts: Accounts, apns: APNs, operatorToken: String = "", maxEnvelopeAge: Int64 = 86400, rateLimit: Int = 50,
                rateBurst: Int = 500,
                retention: Int64 = 7 * 86400, lease: Int64 = 60, instanceName: String = "", logLevel: LogLevel = .info) {
        self.listen = listen
        self.adminListen = adminListen
        self.publicOrigin = publicOrigin
        self.databaseURL = databaseURL
        self.tlsCertificate = tlsCertificate
        self.tlsKey = tlsKey
        self.allowPlainHTTP = allowPlainHTTP
        self.accounts = accounts
        self.apns = apns
        self.operatorToken = operatorToken
        self.maxEnvelopeAge = maxEnvelopeAge
        self.rateLimit = rateLimit
        self.rateBurst = rateBurst
        self.retention = retention
        self.lease = lease
        self.instanceName = instanceName.isEmpty ? Self.defaultInstanceName() : instanceName
        self.logLevel = logLevel
    }

    /// Reads the settings of `RelaySettings`.
    public init(_ c: ServiceConfiguration) throws(ConfigurationError) {
        func key(_ name: String) -> String { c.prefix + name }
        let accountsURL = c[RelaySettings.accountsURL]
        if accountsURL.scheme == "http", !["127.0.0.1", "::1", "localhost"].contains(accountsURL.host) {
            throw ConfigurationError(key: key(RelaySettings.accountsURL.name), reason: "http is allowed for loopback addresses only",
                                     shownValue: accountsURL.description)
        }
        for setting in [RelaySettings.apnsKeyID, RelaySettings.apnsTeamID] {
            let value = c[setting]
            guard value.utf8.count == 10, value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }) else {
                throw ConfigurationError(key: key(setting.name), reason: "must be 10 characters A-Z and 0-9 as Apple shows it",
                                         shownValue: value)
            }
        }
        let bundleID = c[RelaySettings.apnsBundleID]
        guard !bundleID.isEmpty, bundleID.utf8.count <= 155,
              bundleID.utf8.allSatisfy({ $0 == 0x2E || $0 == 0x2D || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A)
                  || ($0 >= 0x61 && $0 <= 0x7A) }) else {
            throw ConfigurationError(key: key(RelaySettings.apnsBundleID.name), reason: "must be a bundle id (letters, digits, '.', '-')",
                                     shownValue: bundleID)
        }
        self.init(
            listen: try ListenAddress.parse(c[RelaySettings.listen], key: key(RelaySettings.listen.name)),
            adminListen: try ListenAddress.parse(c[RelaySettings.adminListen], key: key(RelaySettings.adminListen.name)),
            publicOrigin: c[RelaySettings.publicOrigin].origin, databaseURL: c[DatabaseServiceSettings.databaseURL],
            tlsCertificate: c[DatabaseServiceSettings.tlsCertificate], tlsKey: c[DatabaseServiceSettings.tlsKey],
            allowPlainHTTP: c[DatabaseServiceSettings.allowPlainHTTP],
            accounts: Accounts(url: accountsURL.description, token: c[RelaySettings.accountsToken],
                               caFile: c[RelaySettings.accountsCAFile],
                               cacheTTL: c[RelaySettings.accountsCacheTTL], checkInterval: c[RelaySettings.accountsCheckInterval]),
            apns: APNs(keyFile: c[RelaySettings.apnsKeyFile], keyID: c[RelaySettings.apnsKeyID], teamID: c[RelaySettings.apnsTeamID],
                       bundleID: bundleID,
                       productionURL: c[RelaySettings.apnsProductionURL].origin, sandboxURL: c[RelaySettings.apnsSandboxURL].origin,
                       caFile: c[RelaySettings.apnsCAFile], connections: c[RelaySettings.apnsConnections],
                       engine: c[RelaySettings.apnsClient], maxInFlight: c[RelaySettings.apnsMaxInFlight],
                       tokenRefresh: c[RelaySettings.apnsTokenRefresh],
                       sharedToken: c[RelaySettings.apnsTokenShared], testClockFile: c[RelaySettings.apnsTestClockFile]),
            operatorToken: c[RelaySettings.operatorToken],
            maxEnvelopeAge: c[RelaySettings.maxEnvelopeAge].components.seconds, rateLimit: c[RelaySettings.rateLimit],
            rateBurst: c[RelaySettings.rateBurst],
            retention: c[RelaySettings.retention].components.seconds, lease: c[RelaySettings.leaseDuration].components.seconds,
            instanceName: c[RelaySettings.instanceName], logLevel: c[RelaySettings.logLevel])
        _ = try PostgresTransportPolicy.configuration(in: c, urlSetting: DatabaseServiceSettings.databaseURL)
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ConfigurationError(key: key(DatabaseServiceSettings.tlsKey.name), reason: "TLS_CERT and TLS_KEY must be given together")
        }
        guard tlsCertificate != nil || allowPlainHTTP else {
            throw ConfigurationError(key: key(DatabaseServiceSettings.tlsCertificate.name),
                                     reason: "is required unless ALLOW_PLAIN_HTTP=true")
        }
        databaseStartTimeout = c[DatabaseServiceSettings.databaseStartTimeout]
        perIPConnectionLimit = c[DatabaseServiceSettings.perIPConnectionLimit]
        httpEngine = c[RelaySettings.httpEngine]
        pairingRateOutpost = c[RelaySettings.pairingRateOutpost]
        catchupRetention = c[RelaySettings.catchupRetention].components.seconds
        catchupLimit = c[RelaySettings.catchupLimit]
        pairingRateAddress = c[RelaySettings.pairingRateAddress]
        outpostSilence = c[RelaySettings.outpostSilence].components.seconds
        silenceAlerts = c[RelaySettings.silenceAlerts]
        verifyTables = c[RelaySettings.verifyTables]
        if let problem = retentionProblem {
            throw ConfigurationError(key: key(RelaySettings.retention.name), reason: problem, shownValue: String(retention))
        }
        try AdminListener.check(adminListen, hasTLS: tlsCertificate != nil, in: c, setting: RelaySettings.adminListen)
    }

    /// Why `retention` cannot work with `maxEnvelopeAge`, or nil.
    ///
    /// The row of a delivery is what recognises its envelope when it comes
    /// again; an envelope is accepted until `iat` + `MAX_ENVELOPE_AGE`, so a
    /// row pruned before then would let a replay of it be queued (and pushed)
    /// a second time.
    public var retentionProblem: String? {
        guard retention < maxEnvelopeAge else { return nil }
        return """
               must be at least MAX_ENVELOPE_AGE (\(maxEnvelopeAge) s): a delivery deleted while its envelope is still accepted could \
               be queued again by a replay
               """
    }

    /// The TLS files of both listeners, when set.
    public var tls: HTTPServer.Configuration.TLS? {
        guard let tlsCertificate, let tlsKey else { return nil }
        return .init(certificatePath: tlsCertificate, privateKeyPath: tlsKey)
    }

    /// The pool settings for `databaseURL`.
    ///
    /// The queue table grows and shrinks by orders of magnitude within
    /// minutes, faster than statistics follow, and a plan cached while it was
    /// small (a sequential scan feeding a hash join) stays in use as it grows.
    /// Every relay statement is a key or partial-index look-up, so the
    /// relay's sessions plan once (generic plans) and never scan or hash the
    /// whole table.
    ///
    /// A statement that runs longer than `defaultStatementTimeout` is cancelled unless the URL sets its
    /// own `statement_timeout` (`0` for none): intake writes one batch at a time, so a flush held up by
    /// a lock would otherwise hold up every envelope behind it, unanswered.
    public func postgresConfiguration() throws -> PostgresClient.Configuration {
        var c = try PostgresClient.Configuration(url: databaseURL)
        c.sessionSettings = Self.postgresSessionSettings
        if c.statementTimeout == nil { c.statementTimeout = Self.defaultStatementTimeout }
        return c
    }

    /// The relay's `statement_timeout` when its database URL sets none: far above an intake or completion
    /// batch's time (milliseconds; the maintenance sets its own), half an outpost's request timeout (30 s),
    /// so an envelope held up behind a stuck batch is answered 503 and sent again rather than timed out.
    public static let defaultStatementTimeout: Duration = .seconds(15)

    /// The planner settings of every relay session (see `postgresConfiguration()`).
    static let postgresSessionSettings = ["plan_cache_mode": "force_generic_plan", "enable_seqscan": "off", "enable_hashjoin": "off",
                                          "enable_mergejoin": "off"]

    static func defaultInstanceName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }
}
