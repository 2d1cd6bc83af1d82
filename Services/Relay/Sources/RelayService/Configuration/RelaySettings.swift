public import MailwakeCore
public import MailwakeHTTPServer
import MailwakeServiceSupport

/// Every setting of `mailwake-relay` (`MAILWAKE_RELAY_*`), with its default and meaning.
public enum RelaySettings {
    public static let listen = ConfigurationSetting<String>.string("LISTEN", default: "127.0.0.1:8444",
                                                                   help: """
                                                                         Address and port of the public HTTPS listener (host:port; \
                                                                         IPv6 as [::]:8444).
                                                                         """)
    public static let adminListen = ConfigurationSetting<String>.string("ADMIN_LISTEN", default: "127.0.0.1:9444",
                                                                        help: """
                                                                              Address and port of the admin listener (/metrics, \
                                                                              /healthz, /readyz, /admin): plain HTTP on loopback, \
                                                                              HTTPS with TLS_CERT/TLS_KEY on any other address.
                                                                              """)
    public static let publicOrigin = ConfigurationSetting<ConfigURL>.origin("PUBLIC_ORIGIN",
                                                                            help: """
                                                                                  This relay's public origin: the envelope `aud` and \
                                                                                  the origin requests are signed for (PROTOCOL §5, §8).
                                                                                  """)
    public static let accountsURL = ConfigurationSetting<ConfigURL>.url("ACCOUNTS_URL", schemes: ["https", "http"],
                                                                        help: """
                                                                              Base URL of the accounts service's internal API (http \
                                                                              only on loopback).
                                                                              """)
    public static let accountsToken = ConfigurationSetting<String>.bearerToken("ACCOUNTS_TOKEN",
                                                                               help: """
                                                                                     This relay's service token at accounts (one of \
                                                                                     its MAILWAKE_ACCOUNTS_SERVICE_TOKENS).
                                                                                     """)
    public static let accountsCAFile = ConfigurationSetting<String>.existingFile("ACCOUNTS_CA_FILE",
                                                                                 help: """
                                                                                       PEM CA bundle that alone is trusted for \
                                                                                       ACCOUNTS_URL; the system store \
                                                                                       when unset.
                                                                                       """).optional()
    public static let accountsCacheTTL = ConfigurationSetting<Duration>.duration("ACCOUNTS_CACHE_TTL", default: .seconds(30),
                                                                                 range: 0...600,
                                                                                 help: """
                                                                                       How long a device authorization from accounts \
                                                                                       is reused (0 asks every time). APNs 410s \
                                                                                       invalidate at once.
                                                                                       """)
    public static let accountsCheckInterval = ConfigurationSetting<Duration>.duration("ACCOUNTS_CHECK_INTERVAL", default: .seconds(10),
                                                                                      range: 1...600,
                                                                                      help: """
                                                                                            How often the relay checks that accounts \
                                                                                            answers: mailwake_relay_accounts_reachable \
                                                                                            and a log line when it changes (not a \
                                                                                            readiness condition).
                                                                                            """)
    public static let apnsKeyFile = ConfigurationSetting<String>.existingFile("APNS_KEY_FILE",
                                                                              help: """
                                                                                    The APNs authentication key (.p8, PKCS#8 PEM, mode \
                                                                                    0600) for token-based provider authentication.
                                                                                    """)
    public static let apnsKeyID = ConfigurationSetting<String>.string("APNS_KEY_ID",
                                                                      help: "The 10-character key id of APNS_KEY_FILE (the JWT `kid`).")
    public static let apnsTeamID = ConfigurationSetting<String>.string("APNS_TEAM_ID",
                                                                       help: "The 10-character Apple developer team id (the JWT `iss`).")
    public static let apnsBundleID = ConfigurationSetting<String>.string("APNS_BUNDLE_ID",
                                                                         help: """
                                                                               The App's bundle id: the apns-topic (plus \
                                                                               .push-type.liveactivity for Live Activities).
                                                                               """)
    public static let apnsProductionURL = ConfigurationSetting<ConfigURL>.origin("APNS_PRODUCTION_URL",
                                                                                 default: "https://api.push.apple.com",
                                                                                 help: """
                                                                                       APNs origin for devices in the production \
                                                                                       environment.
                                                                                       """)
    public static let apnsSandboxURL = ConfigurationSetting<ConfigURL>.origin("APNS_SANDBOX_URL",
                                                                              default: "https://api.sandbox.push.apple.com",
                                                                              help: """
                                                                                    APNs origin for devices in the sandbox \
                                                                                    (development) environment.
                                                                                    """)
    public static let apnsCAFile = ConfigurationSetting<String>.existingFile("APNS_CA_FILE",
                                                                             help: """
                                                                                   PEM CA bundle that alone is trusted for the APNs \
                                                                                   origins (the simulator's); the system store \
                                                                                   when unset.
                                                                                   """).optional()
    public static let apnsTokenShared = ConfigurationSetting<Bool>.bool("APNS_TOKEN_SHARED", default: true,
                                                                        help: """
                                                                              Share one provider token among all instances on the \
                                                                              database (renewed by one of them under a lease); false: \
                                                                              each instance signs its own.
                                                                              """)
    public static let apnsTestClockFile = ConfigurationSetting<String>.existingFile("APNS_TEST_CLOCK_FILE",
                                                                                    help: """
                                                                                          Tests only: the provider token's clock is \
                                                                                          real time plus the seconds in this file's \
                                                                                          first 8 bytes (little-endian, \
                                                                                          memory-mapped).
                                                                                          """).optional()
    public static let apnsConnections = ConfigurationSetting<Int>.int("APNS_CONNECTIONS", default: 2, range: 1...16,
                                                                      help: """
                                                                            HTTP/2 connections per APNs environment; requests are \
                                                                            multiplexed over them.
                                                                            """)
    public static let apnsClient = ConfigurationSetting<RelayConfiguration.APNs.Engine>.choice("APNS_CLIENT", default: .nghttp2,
                                                                                           help: """
                                                                                                 The APNs transport: nghttp2 (HTTP/2 \
                                                                                                 on libnghttp2 and OpenSSL, one \
                                                                                                 thread per environment) or libcurl \
                                                                                                 (the general HTTP client, about \
                                                                                                 three times the CPU per push).
                                                                                                 """)
    public static let httpEngine = ConfigurationSetting<HTTPServer.Configuration.Engine>.choice("HTTP_ENGINE", default: .epoll,
                                                                                             help: """
                                                                                                   The public listener's engine: epoll \
                                                                                                   (Mailwake's own, OpenSSL and a \
                                                                                                   strict HTTP/1.1 parser, no suspend \
                                                                                                   and resume per request) or \
                                                                                                   libmicrohttpd (GnuTLS).
                                                                                                   """)
    public static let apnsMaxInFlight = ConfigurationSetting<Int>.int("APNS_MAX_IN_FLIGHT", default: 1000, range: 8...20000,
                                                                      help: """
                                                                            Upper bound of the adaptive window of APNs requests in \
                                                                            flight per instance.
                                                                            """)
    public static let apnsTokenRefresh = ConfigurationSetting<Duration>.duration("APNS_TOKEN_REFRESH", default: .seconds(2400),
                                                                                 range: 1200...3600,
                                                                                 help: """
                                                                                       Age at which the provider token (ES256 JWT) is \
                                                                                       replaced; Apple accepts 20 to 60 minutes.
                                                                                       """)
    public static let operatorToken = ConfigurationSetting<String>.bearerToken("OPERATOR_TOKEN", emptyDisables: true,
                                                                               help: """
                                                                                     Bearer token for /admin/v1/* and the /admin page; \
                                                                                     empty disables them.
                                                                                     """)
    public static let maxEnvelopeAge = ConfigurationSetting<Duration>.duration("MAX_ENVELOPE_AGE", default: .seconds(86400),
                                                                               range: 60...2_419_200,
                                                                               help: """
                                                                                     Oldest `iat` accepted; also the APNs expiration \
                                                                                     and the retry deadline of a delivery.
                                                                                     """)
    public static let rateLimit = ConfigurationSetting<Int>.int("RATE_LIMIT", default: 50, range: 1...1_000_000,
                                                                help: """
                                                                      Envelopes per second one outpost may submit, on average, counted \
                                                                      across every instance (one token bucket per outpost in \
                                                                      PostgreSQL).
                                                                      """)
    public static let rateBurst = ConfigurationSetting<Int>.int("RATE_BURST", default: 500, range: 1...10_000_000,
                                                                help: """
                                                                      Envelopes one outpost may submit at once before RATE_LIMIT \
                                                                      applies (across every instance).
                                                                      """)
    public static let retention = ConfigurationSetting<Duration>.duration("RETENTION", default: .seconds(7 * 86400),
                                                                          range: 3600...31_536_000,
                                                                          help: """
                                                                                How long finished deliveries (sent, failed, expired) \
                                                                                stay queryable before they are deleted; at least \
                                                                                MAX_ENVELOPE_AGE (a pruned row would let a replay of \
                                                                                its envelope be queued again).
                                                                                """)
    public static let pairingRateOutpost = ConfigurationSetting<Int>.int("PAIRING_RATE_OUTPOST", default: 10, range: 0...10_000,
                                                                         help: """
                                                                               Pairing registrations (POST /v1/pairings) one outpost \
                                                                               may make per minute, across every instance; 0 turns the \
                                                                               limit off.
                                                                               """)
    public static let pairingRateAddress = ConfigurationSetting<Int>.int("PAIRING_RATE_ADDRESS", default: 30, range: 0...100_000,
                                                                         help: """
                                                                               Pairing registrations one client address (IPv4, or IPv6 \
                                                                               /64) may attempt per minute, as many at once, across \
                                                                               every instance; 0 turns the limit off (behind a proxy \
                                                                               that shares one address).
                                                                               """)
    public static let leaseDuration = ConfigurationSetting<Duration>.duration("LEASE", default: .seconds(60), range: 5...3600,
                                                                              help: """
                                                                                    How long a claimed delivery belongs to one \
                                                                                    instance; a crashed instance's claims come back \
                                                                                    after it.
                                                                                    """)
    public static let outpostSilence = ConfigurationSetting<Duration>.duration("OUTPOST_SILENCE", default: .seconds(600),
                                                                               range: 1...604_800,
                                                                               help: """
                                                                                     How long an outpost with active pairings may go \
                                                                                     without a heartbeat before each paired device \
                                                                                     gets one outpost-silent alert (PROTOCOL §14).
                                                                                     """)
    public static let silenceAlerts = ConfigurationSetting<Bool>.bool("SILENCE_ALERTS", default: true,
                                                                      help: """
                                                                            Send relay-authored outpost alerts (outpost-silent, \
                                                                            outpost-back, mailbox-failing); false records heartbeats \
                                                                            but alerts nobody.
                                                                            """)
    public static let instanceName = ConfigurationSetting<String>.string("INSTANCE_NAME", default: "", allowEmpty: true,
                                                                         help: """
                                                                               This instance's name in claims and logs; host name and \
                                                                               process id when empty.
                                                                               """)
    public static let logLevel = ConfigurationSetting<LogLevel>.logLevel()
    public static let catchupRetention = ConfigurationSetting<Duration>.duration("CATCHUP_RETENTION", default: .seconds(72 * 3600),
                                                                                 range: 0...2_592_000,
                                                                                 help: """
                                                                                       How long each device's catch-up log keeps the \
                                                                                       envelopes accepted for it (ciphertext only, \
                                                                                       PROTOCOL §12); 0 keeps none.
                                                                                       """)
    public static let catchupLimit = ConfigurationSetting<Int>.int("CATCHUP_LIMIT", default: 1000, range: 0...100_000,
                                                                   help: """
                                                                         Envelopes a device's catch-up log keeps at most (the oldest \
                                                                         go first); 0 keeps none.
                                                                         """)
    public static let verifyTables = ConfigurationSetting<Int>.int("VERIFY_TABLES", default: 64, range: 0...4096,
                                                                   help: """
                                                                         Outpost keys that get a precomputed table, cutting the \
                                                                         CPU of each signature check to a quarter (264 KiB each; \
                                                                         a key qualifies after 32 new envelopes within 10 \
                                                                         minutes); 0 turns them off.
                                                                         """)

    /// The specification `--help` and the docs print.
    public static let spec = ConfigurationSpec(service: "relay", settings: [
        listen, adminListen, publicOrigin, httpEngine,
    ] + DatabaseServiceSettings.all + [
        accountsURL, accountsToken, accountsCAFile, accountsCacheTTL, accountsCheckInterval,
        apnsKeyFile, apnsKeyID, apnsTeamID, apnsBundleID, apnsProductionURL, apnsSandboxURL, apnsCAFile, apnsConnections, apnsClient,
        apnsMaxInFlight, apnsTokenRefresh,
        apnsTokenShared, apnsTestClockFile,
        operatorToken, maxEnvelopeAge, rateLimit, rateBurst, retention, pairingRateOutpost, pairingRateAddress, leaseDuration,
        instanceName, logLevel,
        catchupRetention, catchupLimit, outpostSilence, silenceAlerts, verifyTables,
    ])
}
