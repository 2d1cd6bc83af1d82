public import MailwakeCore
import MailwakePostgres

/// The settings relay and accounts share, written once: each service lists them under its own prefix
/// (`MAILWAKE_RELAY_TLS_CERT`, `MAILWAKE_ACCOUNTS_TLS_CERT`) with the same default and meaning.
public enum DatabaseServiceSettings {
    public static let databaseURL = ConfigurationSetting<String>.string(
        "DATABASE_URL", secret: true,
        help: """
            PostgreSQL connection URL, postgres://user:password@host:port/database?sslmode=verify-full; for a primary with standbys \
            list them, host-a:5432,host-b:5432, and add target_session_attrs=read-write (credentials allowed: the setting is secret).
            """)
    public static let databaseAllowUnverifiedTLS = PostgresTransportPolicy.setting
    public static let databaseStartTimeout = ConfigurationSetting<Duration>.duration(
        "DATABASE_START_TIMEOUT", default: .seconds(120), range: 0...3600,
        help: """
            How long the service retries connecting to PostgreSQL at start (0.5 s, doubling to 10 s) before it gives up and exits 1; \
            0 tries once.
            """)
    public static let tlsCertificate = ConfigurationSetting<String>.existingFile(
        "TLS_CERT", help: "PEM certificate chain of the public listener (and of the admin listener off loopback).").optional()
    public static let tlsKey = ConfigurationSetting<String>.existingFile("TLS_KEY", help: "PEM private key of TLS_CERT.").optional()
    public static let perIPConnectionLimit = ConfigurationSetting<Int>.int(
        "PER_IP_CONNECTION_LIMIT", default: 128, range: 0...1_000_000,
        help: """
            Concurrent connections one IP address may hold on the public listener; 0 turns the limit off (behind a load balancer \
            or NAT that shares an address).
            """)
    public static let allowPlainHTTP = ConfigurationSetting<Bool>.bool(
        "ALLOW_PLAIN_HTTP", default: false, help: "Serve plain HTTP when no certificate is set (loopback addresses only; for tests).")

    /// All of them, in the order `--help` lists them.
    public static let all: [any AnyConfigurationSetting] = [
        databaseURL, databaseAllowUnverifiedTLS, databaseStartTimeout, tlsCertificate, tlsKey, allowPlainHTTP, perIPConnectionLimit,
    ]
}
