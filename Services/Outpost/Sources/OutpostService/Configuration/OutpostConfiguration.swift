public import MailwakeCore

/// The typed configuration of one outpost, read from `OutpostSettings`; each default is the setting's default.
public struct OutpostConfiguration: Sendable, Equatable {
    /// How notifications reach the relay and how long their traces are kept.
    public struct Delivery: Sendable, Equatable {
        /// Seconds a notification the relay has not taken is kept trying (`DELIVERY_MAX_AGE`). Default 86400.
        public var maxAge: Int64 = 86400
        /// Days the administrator history is kept (`HISTORY_DAYS`). Default 30.
        public var historyDays: Int = 30
        /// Seconds a code stays as a Live Activity; 0 turns them off (`LIVE_ACTIVITY_LIFETIME`). Default 600.
        public var liveActivityLifetime: Int64 = 600
        /// How often the outpost tells its relay it is alive (`HEARTBEAT_INTERVAL`). Default 60 s.
        public var heartbeatInterval: Duration = .seconds(60)

        public init() {}

        public init(maxAge: Int64, historyDays: Int, liveActivityLifetime: Int64, heartbeatInterval: Duration) {
            self.maxAge = maxAge
            self.historyDays = historyDays
            self.liveActivityLifetime = liveActivityLifetime
            self.heartbeatInterval = heartbeatInterval
        }
    }

    /// The HTTPS API the App reads bodies and manages the outpost through.
    public struct API: Sendable, Equatable {
        /// Where the API listens when `LISTEN` is empty, for the origin's port.
        public static let defaultListen = ListenAddress(host: "0.0.0.0", port: 8443)

        /// Where it listens (`LISTEN`); nil turns it off. Default 0.0.0.0:8443.
        public var listen: ListenAddress? = API.defaultListen
        /// The HTTPS origin the App reaches it at (`PUBLIC_URL`); empty: `https://<host name>:<port>`. Default empty.
        public var publicURL: String = ""
        /// Concurrent connections one IP address may hold; 0: no limit (`PER_IP_CONNECTION_LIMIT`). Default 32.
        public var perIPConnectionLimit: Int = 32
        /// Bytes of a message fetched at most to show it (`BODY_MAX_BYTES`). Default 10 MiB.
        public var bodyMaxBytes: Int = 10 << 20
        /// The PEM certificate chain (`TLS_CERT`); nil: a self-signed one in `<data dir>/tls`. Default nil.
        public var tlsCertificate: String?
        /// The PEM private key of `tlsCertificate` (`TLS_KEY`). Default nil.
        public var tlsKey: String?

        public init() {}

        public init(listen: ListenAddress?, publicURL: String, perIPConnectionLimit: Int, bodyMaxBytes: Int, tlsCertificate: String?,
                    tlsKey: String?) {
            self.listen = listen
            self.publicURL = publicURL
            self.perIPConnectionLimit = perIPConnectionLimit
            self.bodyMaxBytes = bodyMaxBytes
            self.tlsCertificate = tlsCertificate
            self.tlsKey = tlsKey
        }
    }

    /// The admin listener: `/metrics`, `/healthz`, `/readyz`.
    public struct Admin: Sendable, Equatable {
        /// Where it listens (`ADMIN_LISTEN`); nil turns it off. Default 127.0.0.1:9445.
        public var listen: ListenAddress? = ListenAddress(host: "127.0.0.1", port: 9445)

        public init() {}
    }

    public var delivery = Delivery()
    /// How the mailbox watchers pace themselves (`IDLE_RESTART`, `POLL_INTERVAL`, `IMAP_RESPONSE_TIMEOUT`, `RECONNECT_BACKOFF`).
    public var watch = WatchTiming()
    public var api = API()
    public var admin = Admin()
    /// Lowest level of log lines written (`LOG_LEVEL`). Default info.
    public var logLevel: LogLevel = .info

    public init() {}

    /// Reads the settings of `OutpostSettings`.
    ///
    /// - Throws: `ConfigurationError` naming the key of a listen address that is not `host:port`.
    public init(_ c: ServiceConfiguration) throws(ConfigurationError) {
        self.init()
        delivery = Delivery(maxAge: c[OutpostSettings.deliveryMaxAge].components.seconds, historyDays: c[OutpostSettings.historyDays],
                            liveActivityLifetime: c[OutpostSettings.liveActivityLifetime].components.seconds,
                            heartbeatInterval: c[OutpostSettings.heartbeatInterval])
        watch.idleRestart = c[OutpostSettings.idleRestart]
        watch.pollInterval = c[OutpostSettings.pollInterval]
        watch.responseTimeout = c[OutpostSettings.imapResponseTimeout]
        watch.backoff = c[OutpostSettings.reconnectBackoff]
        api = API(listen: try Self.address(OutpostSettings.listen, in: c), publicURL: c[OutpostSettings.publicURL],
                  perIPConnectionLimit: c[OutpostSettings.perIPConnectionLimit], bodyMaxBytes: c[OutpostSettings.bodyMaxBytes],
                  tlsCertificate: c[OutpostSettings.tlsCertificate], tlsKey: c[OutpostSettings.tlsKey])
        admin.listen = try Self.address(OutpostSettings.adminListen, in: c)
        logLevel = c[OutpostSettings.logLevel]
    }

    /// The listen address of `setting`, nil when it is empty (turned off).
    private static func address(_ setting: ConfigurationSetting<String>,
                                in c: ServiceConfiguration) throws(ConfigurationError) -> ListenAddress? {
        let value = c[setting]
        return value.isEmpty ? nil : try ListenAddress.parse(value, key: c.prefix + setting.name)
    }
}
