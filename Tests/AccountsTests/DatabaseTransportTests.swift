import AccountsService
import MailwakeCore
import MailwakePostgres
import Testing

/// DATABASE_URL to a host on the network must verify the server (sslmode=verify-full) unless the operator opts out.
@Suite struct DatabaseTransportTests {
    static func load(_ url: String, allowUnverified: String? = nil) throws -> AccountsConfiguration {
        var env = ["MAILWAKE_ACCOUNTS_PUBLIC_ORIGIN": "https://accounts.example.net", "MAILWAKE_ACCOUNTS_DATABASE_URL": url]
        if let allowUnverified { env["MAILWAKE_ACCOUNTS_DATABASE_ALLOW_UNVERIFIED_TLS"] = allowUnverified }
        return try AccountsConfiguration(AccountsSettings.spec.load(environment: env))
    }

    @Test(arguments: ["disable", "allow", "prefer", "require", "verify-ca"])
    func aNetworkHostBelowVerifyFullStopsTheStartNamingTheSetting(_ mode: String) throws {
        do {
            _ = try Self.load("postgres://accounts:secret@db.internal:5432/accounts?sslmode=\(mode)")
            Issue.record("sslmode=\(mode) to db.internal was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "MAILWAKE_ACCOUNTS_DATABASE_URL")
            #expect(error.description == """
                                         configuration: MAILWAKE_ACCOUNTS_DATABASE_URL (environment): connects to db.internal, which \
                                         is not loopback or a Unix socket, with sslmode=\(mode): use sslmode=verify-full (and \
                                         sslrootcert=<the server's CA>), or set MAILWAKE_ACCOUNTS_DATABASE_ALLOW_UNVERIFIED_TLS=true \
                                         on a network you trust
                                         """)
            #expect(!error.description.contains("secret"), "the URL is secret")
        }
        _ = try Self.load("postgres://accounts:secret@db.internal:5432/accounts?sslmode=\(mode)", allowUnverified: "true")
    }

    @Test func theDefaultSSLModeToANetworkHostIsRefusedToo() {
        #expect(throws: ConfigurationError.self) { try Self.load("postgres://accounts@10.0.0.7/accounts") }
        #expect(throws: ConfigurationError.self) { try Self.load("postgres://accounts@[2001:db8::7]/accounts?sslmode=require") }
    }

    @Test(arguments: [
        "postgres://accounts@db.internal/accounts?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem",
        "postgres://accounts@127.0.0.1/accounts?sslmode=disable", "postgres://accounts@127.0.0.53/accounts",
        "postgres://accounts@localhost/accounts?sslmode=disable", "postgres://accounts@[::1]:5432/accounts?sslmode=disable",
        "postgres://accounts@%2Fvar%2Frun%2Fpostgresql/accounts", "postgres://accounts@db.internal/accounts?host=/run/postgresql",
    ])
    func verifyFullLoopbackAndUnixSocketsStart(_ url: String) throws {
        _ = try Self.load(url)
    }

    @Test func localityOfAConfiguration() throws {
        #expect(try PostgresClient.Configuration(url: "postgres://u@127.1.2.3/d").isLocal)
        #expect(!(try PostgresClient.Configuration(url: "postgres://u@127.example.net/d").isLocal))
        #expect(!(try PostgresClient.Configuration(url: "postgres://u@postgres/d").isLocal))
        #expect(try PostgresClient.Configuration(url: "postgres://u@%2Ftmp/d").isLocal)
    }
}
