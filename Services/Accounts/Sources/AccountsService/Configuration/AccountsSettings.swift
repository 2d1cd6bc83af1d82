public import MailwakeCore
import MailwakePostgres

/// Every setting of `mailwake-accounts` (`MAILWAKE_ACCOUNTS_*`), with its default and meaning.
public enum AccountsSettings {
    public static let listen = ConfigurationSetting<String>.string("LISTEN", default: "127.0.0.1:8443",
                                                                   help: """
                                                                         Address and port of the public HTTPS listener (host:port; \
                                                                         IPv6 as [::]:8443).
                                                                         """)
    public static let internalListen = ConfigurationSetting<String>.string("INTERNAL_LISTEN", default: "", allowEmpty: true,
                                                                           help: """
                                                                                 Address and port of a listener of its own for \
                                                                                 /internal/* (relays) and /operator/* (the operator); \
                                                                                 the public listener then answers 404 for them. Plain \
                                                                                 HTTP on loopback, HTTPS with TLS_CERT/TLS_KEY on any \
                                                                                 other address. Empty: they are served on the public \
                                                                                 listener.
                                                                                 """)
    public static let adminListen = ConfigurationSetting<String>.string("ADMIN_LISTEN", default: "127.0.0.1:9443",
                                                                        help: """
                                                                              Address and port of the admin listener (/metrics, \
                                                                              /healthz, /readyz): plain HTTP on loopback, HTTPS with \
                                                                              TLS_CERT/TLS_KEY on any other address.
                                                                              """)
    public static let publicOrigin = ConfigurationSetting<ConfigURL>.origin("PUBLIC_ORIGIN",
                                                                            help: """
                                                                                  This service's public origin, exactly as devices and \
                                                                                  outposts sign it (PROTOCOL §8).
                                                                                  """)
    public static let databaseURL = ConfigurationSetting<String>.string(
        "DATABASE_URL", secret: true,
        help: """
            PostgreSQL connection URL, postgres://user:password@host:port/database?sslmode=verify-full; for a primary with standbys \
            list them, host-a:5432,host-b:5432, and add target_session_attrs=read-write (credentials allowed: the setting is secret).
            """)
    public static let databaseAllowUnverifiedTLS = PostgresTransportPolicy.setting
    public static let databaseStartTimeout = ConfigurationSetting<Duration>.duration("DATABASE_START_TIMEOUT", default: .seconds(120),
                                                                                     range: 0...3600,
                                                                                     help: """
                                                                                           How long the service retries connecting to \
                                                                                           PostgreSQL at start (0.5 s, doubling to 10 \
                                                                                           s) before it gives up and exits 1; 0 \
                                                                                           tries once.
                                                                                           """)
    public static let tlsCertificate = ConfigurationSetting<String>.existingFile("TLS_CERT",
                                                                                 help: """
                                                                                       PEM certificate chain of the public listener \
                                                                                       (and of the admin listener off \
                                                                                       loopback).
                                                                                       """).optional()
    public static let tlsKey = ConfigurationSetting<String>.existingFile("TLS_KEY", help: "PEM private key of TLS_CERT.").optional()
    public static let perIPConnectionLimit = ConfigurationSetting<Int>.int("PER_IP_CONNECTION_LIMIT", default: 128, range: 0...1_000_000,
                                                                           help: """
                                                                                 Concurrent connections one IP address may hold on the \
                                                                                 public listener; 0 turns the limit off (behind a load \
                                                                                 balancer or NAT that shares an address).
                                                                                 """)
    public static let allowPlainHTTP = ConfigurationSetting<Bool>.bool("ALLOW_PLAIN_HTTP", default: false,
                                                                       help: """
                                                                             Serve plain HTTP when no certificate is set (loopback \
                                                                             addresses only; for tests).
                                                                             """)
    public static let serviceTokens = ConfigurationSetting<[String]>.bearerTokens("SERVICE_TOKENS",
                                                                                  help: """
                                                                                        Bearer tokens of the relay instances for the \
                                                                                        internal API (comma-separated).
                                                                                        """)
    public static let operatorToken = ConfigurationSetting<String>.bearerToken("OPERATOR_TOKEN", emptyDisables: true,
                                                                               help: """
                                                                                     Bearer token of the operator API (blocking \
                                                                                     devices and outposts); empty disables it.
                                                                                     """)
    public static let pushProductIDs = ConfigurationSetting<[String]>.list("PUSH_PRODUCT_IDS", default: [],
                                                                           help: """
                                                                                 App Store product ids that entitle a device to \
                                                                                 native push.
                                                                                 """)
    public static let purchaseDeviceLimit = ConfigurationSetting<Int>.int("PURCHASE_DEVICE_LIMIT", default: 5, range: 1...100,
                                                                          help: """
                                                                                Devices one App Store purchase (one \
                                                                                originalTransactionId) may entitle; a further device \
                                                                                is refused with purchase-device-limit. 5 by default, \
                                                                                the size of a Family Sharing group.
                                                                                """)
    public static let trialDays = ConfigurationSetting<Int>.int("TRIAL_DAYS", default: 0, range: 0...365,
                                                                help: """
                                                                      Days of native push a newly registered device gets before a \
                                                                      purchase.
                                                                      """)
    public static let diagnosticsRetentionDays = ConfigurationSetting<Int>.int("DIAGNOSTICS_RETENTION_DAYS", default: 7, range: 1...90,
                                                                               help: "Days delivery diagnostics are kept.")
    public static let appStoreBundleID = ConfigurationSetting<String>.string("APPSTORE_BUNDLE_ID", default: "", allowEmpty: true,
                                                                             help: """
                                                                                   The App's bundle id; StoreKit transactions and App \
                                                                                   Store notifications must carry it. Empty disables \
                                                                                   purchases.
                                                                                   """)
    public static let appStoreAppAppleID = ConfigurationSetting<Int>.int("APPSTORE_APP_APPLE_ID", range: 1...Int.max,
                                                                         help: """
                                                                               The App's Apple ID; notifications must carry it \
                                                                               when set.
                                                                               """).optional()
    public static let appStoreEnvironment = ConfigurationSetting<String>.string("APPSTORE_ENVIRONMENT", default: "Production",
                                                                                help: """
                                                                                      The App Store environment purchases come from: \
                                                                                      Production or Sandbox.
                                                                                      """)
    public static let appStoreRootCerts = ConfigurationSetting<[String]>.list("APPSTORE_ROOT_CERTS", default: [],
                                                                              help: """
                                                                                    PEM or DER files of the roots StoreKit chains must \
                                                                                    reach; empty means Apple Root CA - G3 (bundled).
                                                                                    """)
    public static let logLevel = ConfigurationSetting<LogLevel>.logLevel()

    /// The specification `--help` and the docs print.
    public static let spec = ConfigurationSpec(service: "accounts", settings: [
        listen, internalListen, adminListen, publicOrigin, databaseURL, databaseAllowUnverifiedTLS, databaseStartTimeout, tlsCertificate,
        tlsKey, allowPlainHTTP,
        perIPConnectionLimit, serviceTokens, operatorToken, pushProductIDs, purchaseDeviceLimit, trialDays, diagnosticsRetentionDays,
        appStoreBundleID, appStoreAppAppleID, appStoreEnvironment, appStoreRootCerts, logLevel,
    ])
}
