public import MailwakeAppStore
public import MailwakeCore
import MailwakeCrypto
import MailwakeServiceSupport
import MailwakePostgres
public import MailwakeHTTPServer
import Foundation

/// The typed configuration of one accounts instance.
public struct AccountsConfiguration: Sendable {
    public var listenHost: String
    public var listenPort: UInt16
    public var adminHost: String
    /// A listener of its own for `/internal/*` and `/operator/*`; nil serves them on the public listener.
    public var internalListen: ListenAddress?
    public var adminPort: UInt16
    public var publicOrigin: String
    public var databaseURL: String
    /// How long `serve` and `migrate` retry connecting to PostgreSQL at start.
    public var databaseStartTimeout: Duration = .seconds(120)
    /// Concurrent connections one IP address may hold on the public listener; 0: no limit.
    public var perIPConnectionLimit: Int = 128
    public var tlsCertificate: String?
    public var tlsKey: String?
    public var allowPlainHTTP: Bool
    public var serviceTokens: [String]
    public var operatorToken: String
    public var pushProductIDs: Set<String>
    /// Devices one App Store purchase (one `originalTransactionId`) may entitle.
    public var purchaseDeviceLimit: Int = 5
    public var trialSeconds: Int64
    public var diagnosticsRetentionSeconds: Int64
    public var logLevel: LogLevel
    /// StoreKit verification; nil disables the purchase endpoints.
    public var appStore: AppStoreJWSVerifier.Configuration?

    public init(listenHost: String = "127.0.0.1", listenPort: UInt16 = 8443, adminHost: String = "127.0.0.1", adminPort: UInt16 = 9443,
                publicOrigin: String, databaseURL: String, tlsCertificate: String? = nil, tlsKey: String? = nil,
                allowPlainHTTP: Bool = false,
                serviceTokens: [String] = [], operatorToken: String = "", pushProductIDs: Set<String> = [], trialSeconds: Int64 = 0,
                diagnosticsRetentionSeconds: Int64 = 7 * 86400, logLevel: LogLevel = .info,
                appStore: AppStoreJWSVerifier.Configuration? = nil) {
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.adminHost = adminHost
        self.adminPort = adminPort
        self.publicOrigin = publicOrigin
        self.databaseURL = databaseURL
        self.tlsCertificate = tlsCertificate
        self.tlsKey = tlsKey
        self.allowPlainHTTP = allowPlainHTTP
        self.serviceTokens = serviceTokens
        self.operatorToken = operatorToken
        self.pushProductIDs = pushProductIDs
        self.trialSeconds = trialSeconds
        self.diagnosticsRetentionSeconds = diagnosticsRetentionSeconds
        self.logLevel = logLevel
        self.appStore = appStore
    }

    /// Reads the settings of `AccountsSettings`.
    public init(_ c: ServiceConfiguration) throws(ConfigurationError) {
        let listen = try ListenAddress.parse(c[AccountsSettings.listen], key: c.prefix + AccountsSettings.listen.name)
        let admin = try ListenAddress.parse(c[AccountsSettings.adminListen], key: c.prefix + AccountsSettings.adminListen.name)
        let internalText = c[AccountsSettings.internalListen]
        let internalAddress = internalText.isEmpty ? nil : try ListenAddress.parse(internalText,
                                                                                   key: c.prefix + AccountsSettings.internalListen.name)
        self.init(listenHost: listen.host, listenPort: listen.port, adminHost: admin.host, adminPort: admin.port,
                  publicOrigin: c[AccountsSettings.publicOrigin].origin, databaseURL: c[DatabaseServiceSettings.databaseURL],
                  tlsCertificate: c[DatabaseServiceSettings.tlsCertificate], tlsKey: c[DatabaseServiceSettings.tlsKey],
                  allowPlainHTTP: c[DatabaseServiceSettings.allowPlainHTTP], serviceTokens: c[AccountsSettings.serviceTokens],
                  operatorToken: c[AccountsSettings.operatorToken], pushProductIDs: Set(c[AccountsSettings.pushProductIDs]),
                  trialSeconds: Int64(c[AccountsSettings.trialDays]) * 86400,
                  diagnosticsRetentionSeconds: Int64(c[AccountsSettings.diagnosticsRetentionDays]) * 86400,
                  logLevel: c[AccountsSettings.logLevel])
        _ = try PostgresTransportPolicy.configuration(in: c, urlSetting: DatabaseServiceSettings.databaseURL)
        internalListen = internalAddress
        purchaseDeviceLimit = c[AccountsSettings.purchaseDeviceLimit]
        let bundleID = c[AccountsSettings.appStoreBundleID]
        if !bundleID.isEmpty {
            let environmentName = c[AccountsSettings.appStoreEnvironment]
            guard ["Production", "Sandbox"].contains(environmentName) else {
                throw ConfigurationError(key: c.prefix + AccountsSettings.appStoreEnvironment.name,
                                         reason: "must be Production or Sandbox", shownValue: environmentName)
            }
            var roots: [[UInt8]] = []
            for path in c[AccountsSettings.appStoreRootCerts] {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ConfigurationError(key: c.prefix + AccountsSettings.appStoreRootCerts.name, reason: "cannot read \(path)")
                }
                let text = String(decoding: data, as: UTF8.self)
                if text.contains("-----BEGIN CERTIFICATE-----") {
                    guard let der = try? PEM.decode(text, label: "CERTIFICATE") else {
                        throw ConfigurationError(key: c.prefix + AccountsSettings.appStoreRootCerts.name,
                                                 reason: "\(path) is not a PEM certificate")
                    }
                    roots.append(der)
                } else {
                    roots.append(Array(data))
                }
            }
            appStore = AppStoreJWSVerifier.Configuration(
                trustedRoots: roots.isEmpty ? AppleRootCertificates.defaultRoots : roots, bundleId: bundleID,
                appAppleId: c[AccountsSettings.appStoreAppAppleID].map(Int64.init),
                environment: environmentName == "Sandbox" ? .sandbox : .production)
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ConfigurationError(key: c.prefix + "TLS_KEY", reason: "TLS_CERT and TLS_KEY must be given together")
        }
        databaseStartTimeout = c[DatabaseServiceSettings.databaseStartTimeout]
        perIPConnectionLimit = c[DatabaseServiceSettings.perIPConnectionLimit]
        try AdminListener.check(admin, hasTLS: tlsCertificate != nil, in: c, setting: AccountsSettings.adminListen)
        if let internalAddress, tlsCertificate == nil, !HTTPServer.Configuration.isLoopback(internalAddress.host) {
            throw ConfigurationError(
                key: c.prefix + AccountsSettings.internalListen.name,
                reason: """
                        is not a loopback address, so the internal listener serves HTTPS, but \(c.prefix)TLS_CERT and \
                        \(c.prefix)TLS_KEY are not set 
                        """
                    + "(set them, or listen on 127.0.0.1 or [::1] for plain HTTP)",
                source: c.source(of: AccountsSettings.internalListen), shownValue: internalAddress.description)
        }
    }

    /// The TLS files of both listeners, when set.
    public var tls: HTTPServer.Configuration.TLS? {
        guard let tlsCertificate, let tlsKey else { return nil }
        return .init(certificatePath: tlsCertificate, privateKeyPath: tlsKey)
    }
}
