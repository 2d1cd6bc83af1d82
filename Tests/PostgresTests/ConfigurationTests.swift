import MailwakePostgres
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    @Test("a full URL sets every field, percent-decoding user, password and database")
    func fullURL() throws {
        let c = try PostgresClient.Configuration(url: "postgres://app%40x:p%3Ass%2Fw@db.example.net:6543/mail%20wake?sslmode=verify-full&application_name=relay&connect_timeout=3&statement_timeout=2500&pool_size=12")
        #expect(c.user == "app@x")
        #expect(c.password == "p:ss/w")
        #expect(c.host == "db.example.net")
        #expect(c.port == 6543)
        #expect(c.database == "mail wake")
        #expect(c.sslMode == .verifyFull)
        #expect(c.applicationName == "relay")
        #expect(c.connectTimeout == .seconds(3))
        #expect(c.statementTimeout == .milliseconds(2500))
        #expect(c.poolSize == 12)
        #expect(c.unixSocketDirectory == nil)
    }

    @Test("defaults: port 5432, pool of 8, sslmode prefer")
    func defaults() throws {
        let c = try PostgresClient.Configuration(url: "postgresql://u@localhost/db")
        #expect(c.port == 5432)
        #expect(c.poolSize == 8)
        #expect(c.sslMode == .prefer)
        #expect(c.password == nil)
        #expect(c.statementTimeout == nil)
    }

    @Test("a host that is a path, or a host query item, selects a Unix socket directory")
    func unixSocket() throws {
        let a = try PostgresClient.Configuration(url: "postgres://u@%2Fvar%2Frun%2Fpostgresql:5433/db")
        #expect(a.unixSocketDirectory == "/var/run/postgresql")
        #expect(a.port == 5433)
        let b = try PostgresClient.Configuration(url: "postgres://u@/db?host=/tmp/sock")
        #expect(b.unixSocketDirectory == "/tmp/sock")
    }

    @Test("an IPv6 literal in brackets is a host")
    func ipv6() throws {
        let c = try PostgresClient.Configuration(url: "postgres://u:p@[::1]:5544/db")
        #expect(c.host == "::1")
        #expect(c.port == 5544)
    }

    @Test("invalid URLs are configuration errors naming the problem", arguments: [
        "mysql://u@h/db", "postgres://u@h:notaport/db", "postgres://u@h/db?sslmode=sometimes",
        "postgres://u@h/db?pool_size=0", "postgres://u@h/db?bogus=1", "postgres://u%zz@h/db", "no-scheme",
    ])
    func invalid(url: String) {
        #expect(throws: PostgresError.self) { try PostgresClient.Configuration(url: url) }
        do {
            _ = try PostgresClient.Configuration(url: url)
        } catch let e as PostgresError {
            #expect(e.code == .configuration)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("the description never shows the password")
    func redacted() throws {
        let c = try PostgresClient.Configuration(url: "postgres://u:hunter2secret@h/db")
        #expect(!c.description.contains("hunter2secret"))
        #expect(!"\(c)".contains("hunter2secret"))
        #expect(!String(reflecting: c).contains("hunter2secret"))
        #expect(c.description.contains("***"))
    }
}
