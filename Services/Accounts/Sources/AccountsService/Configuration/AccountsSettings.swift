public import MailwakeCore
import MailwakeServiceSupport

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
        listen, internalListen, adminListen, publicOrigin,
    ] + DatabaseServiceSettings.all + [
        serviceTokens, operatorToken, pushProductIDs, purchaseDeviceLimit, trialDays, diagnosticsRetentionDays,
        appStoreBundleID, appStoreAppAppleID, appStoreEnvironment, appStoreRootCerts, logLevel,
    ])
}
