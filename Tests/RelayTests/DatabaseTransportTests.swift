import MailwakeCore
import RelayService
import Testing

/// The relay applies the shared rule: DATABASE_URL off loopback needs sslmode=verify-full or the opt-out.
@Suite struct RelayDatabaseTransportTests {
    @Test func aNetworkHostWithoutVerificationStopsTheRelayNamingItsSetting() throws {
        let url = "postgres://relay:secret@postgres:5432/relay?sslmode=disable"
        do {
            _ = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_DATABASE_URL": url])
            Issue.record("sslmode=disable to postgres was accepted")
        } catch let error as ConfigurationError {
            #expect(error.description == "configuration: MAILWAKE_RELAY_DATABASE_URL (environment): connects to postgres, which is not " +
                                         "loopback or a Unix socket, with sslmode=disable: use sslmode=verify-full (and " +
                                         "sslrootcert=<the server's CA>), or set MAILWAKE_RELAY_DATABASE_ALLOW_UNVERIFIED_TLS=true on a " +
                                         "network you trust")
        }
        _ = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_DATABASE_URL": url,
                                                 "MAILWAKE_RELAY_DATABASE_ALLOW_UNVERIFIED_TLS": "true"])
        _ = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_DATABASE_URL": "postgres://relay@postgres/relay?sslmode=verify-full"])
    }

    @Test func aHostListWithOneNetworkHostNeedsVerificationToo() throws {
        let url = "postgres://relay:secret@127.0.0.1:5432,db-b.internal:5432/relay?target_session_attrs=read-write&sslmode=require"
        do {
            _ = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_DATABASE_URL": url])
            Issue.record("sslmode=require to db-b.internal was accepted")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("connects to db-b.internal, which is not loopback"))
        }
        _ = try CacheAndConfigurationTests.load([
            "MAILWAKE_RELAY_DATABASE_URL": "postgres://relay:secret@db-a.internal:5432," +
                                           "db-b.internal:5432/relay?target_session_attrs=read-write&sslmode=verify-full",
        ])
    }

    @Test func aMalformedHostListStopsTheRelayNamingTheProblemNotTheValue() throws {
        do {
            _ = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_DATABASE_URL": "postgres://relay:hunter2secret@db-a:5432,," +
                                                                                    "db-b:5432/relay?sslmode=verify-full"])
            Issue.record("an empty host in the list was accepted")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("MAILWAKE_RELAY_DATABASE_URL"))
            #expect(error.description.contains("empty host in the host list"))
            #expect(!error.description.contains("hunter2secret"))
        }
    }
}
