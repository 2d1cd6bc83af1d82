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
            #expect(error.description == "configuration: MAILWAKE_RELAY_DATABASE_URL (environment): connects to postgres, which is not loopback or a Unix socket, with sslmode=disable: use sslmode=verify-full (and sslrootcert=<the server's CA>), or set MAILWAKE_RELAY_DATABASE_ALLOW_UNVERIFIED_TLS=true on a network you trust")
        }
        _ = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_DATABASE_URL": url, "MAILWAKE_RELAY_DATABASE_ALLOW_UNVERIFIED_TLS": "true"])
        _ = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_DATABASE_URL": "postgres://relay@postgres/relay?sslmode=verify-full"])
    }
}
