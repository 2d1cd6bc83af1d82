public import MailwakeCore

/// The start-time rule for a database connection that crosses a network:
/// `sslmode=verify-full` unless the service's `DATABASE_ALLOW_UNVERIFIED_TLS` says otherwise.
///
/// A TCP connection to a host that is not loopback (`localhost`, `127.0.0.0/8`,
/// `::1`) and not a Unix socket (any host of a multi-host URL) carries the database password and every row:
/// with `disable`, `allow` or `prefer` anyone on the path reads and changes them,
/// and with `require` or `verify-ca` anyone who can answer for the host name
/// (DNS, ARP, a rogue certificate of the same CA) can. Accounts and the relay
/// both call `check` while reading their settings.
public enum PostgresTransportPolicy {
    /// The opt-out, one per service (`MAILWAKE_RELAY_…`, `MAILWAKE_ACCOUNTS_…`).
    public static let setting = ConfigurationSetting<Bool>.bool(
        "DATABASE_ALLOW_UNVERIFIED_TLS", default: false,
        help: "Accept a DATABASE_URL whose sslmode is below verify-full for a host that is neither loopback nor a Unix socket (a " +
              "private network you trust, such as the compose network). Off: such a URL stops the start.")

    /// The service's `DATABASE_URL`, parsed and checked against this policy, at start.
    ///
    /// - Parameters:
    ///   - settings: the loaded settings.
    ///   - urlSetting: the service's `DATABASE_URL` setting.
    /// - Throws: one line naming the URL key and what is wrong (the part of the URL, never its value), or `check`'s refusal.
    public static func configuration(in settings: ServiceConfiguration, urlSetting: ConfigurationSetting<String>)
        throws(ConfigurationError) -> PostgresClient.Configuration {
        let database: PostgresClient.Configuration
        do {
            database = try PostgresClient.Configuration(url: settings[urlSetting])
        } catch {
            // The parser's reasons name the part (port, host list, sslmode, …), never a value.
            throw ConfigurationError(key: settings.prefix + urlSetting.name,
                                     reason: "is not a valid postgres:// URL (\((error as? PostgresError)?.message ?? "unreadable"))",
                                     source: settings.source(of: urlSetting))
        }
        try check(database, in: settings, urlSetting: urlSetting)
        return database
    }

    /// Refuses `configuration` at start when it crosses a network unverified and the opt-out is not set.
    ///
    /// - Parameters:
    ///   - configuration: the parsed `DATABASE_URL`.
    ///   - settings: the loaded settings (prefix, the opt-out's value).
    ///   - urlSetting: the service's `DATABASE_URL` setting (named in the error).
    /// - Throws: one line naming the URL key, the host, the sslmode and the opt-out key.
    public static func check(_ configuration: PostgresClient.Configuration, in settings: ServiceConfiguration,
                             urlSetting: ConfigurationSetting<String>) throws(ConfigurationError) {
        guard let remote = configuration.firstRemoteEndpoint, configuration.sslMode != .verifyFull, !settings[setting] else { return }
        throw ConfigurationError(
            key: settings.prefix + urlSetting.name,
            reason: "connects to \(remote.host), which is not loopback or a Unix socket, with sslmode=\(configuration.sslMode.rawValue): "
                + "use sslmode=verify-full (and sslrootcert=<the server's CA>), or set \(settings.prefix)\(setting.name)=true on a " +
                  "network you trust",
            source: settings.source(of: urlSetting))
    }
}
