import MailwakePostgres
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    @Test("a full URL sets every field, percent-decoding user, password and database")
    func fullURL() throws {
        let c = try PostgresClient.Configuration(url: """
                                                      postgres://app%40x:p%3Ass%2Fw@db.example.net:6543/mail%20wake?sslmode=verify-full\
                                                      &application_name=relay&connect_timeout=3&statement_timeout=2500&pool_size=12
                                                      """)
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

    @Test("statement_timeout=0 is kept as zero (none), not dropped: it overrides a default the service sets")
    func statementTimeoutZero() throws {
        let c = try PostgresClient.Configuration(url: "postgresql://u@localhost/db?statement_timeout=0")
        #expect(c.statementTimeout == .zero)
        #expect(throws: PostgresError.self) { try PostgresClient.Configuration(url: "postgresql://u@localhost/db?statement_timeout=-1") }
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
        #expect(Self.parseError(url)?.code == .configuration)
    }

    /// The error parsing `url` throws (nil, and an issue, when it parses or throws something else).
    static func parseError(_ url: String) -> PostgresError? {
        do {
            _ = try PostgresClient.Configuration(url: url)
            Issue.record("\(url) was accepted")
        } catch let e as PostgresError {
            return e
        } catch {
            Issue.record("unexpected error \(error)")
        }
        return nil
    }

    @Test("the description never shows the password")
    func redacted() throws {
        let c = try PostgresClient.Configuration(url: "postgres://u:hunter2secret@h/db")
        #expect(!c.description.contains("hunter2secret"))
        #expect(!"\(c)".contains("hunter2secret"))
        #expect(!String(reflecting: c).contains("hunter2secret"))
        #expect(c.description.contains("***"))
    }

    @Test("a host list in the authority gives every server in order, each with its port")
    func multiHost() throws {
        let c = try PostgresClient.Configuration(url: """
                                                      postgres://relay:pw@db-a.example.net:5433,db-b.example.net:5434,\
                                                      [fd00::7]:5435/mailwake?target_session_attrs=read-write&sslmode=verify-full
                                                      """)
        #expect(c.endpoints == [.init(host: "db-a.example.net", port: 5433), .init(host: "db-b.example.net", port: 5434),
                                .init(host: "fd00::7", port: 5435)])
        #expect(c.host == "db-a.example.net")
        #expect(c.port == 5433)
        #expect(c.targetSessionAttributes == .readWrite)
        #expect(c.database == "mailwake")
    }

    @Test("a server of the list without a port gets 5432, and a single port query item applies to every server")
    func multiHostPorts() throws {
        let a = try PostgresClient.Configuration(url: "postgres://u@a:6000,b/db")
        #expect(a.endpoints == [.init(host: "a", port: 6000), .init(host: "b", port: 5432)])
        let b = try PostgresClient.Configuration(url: "postgres://u@a,b/db?port=6543")
        #expect(b.endpoints == [.init(host: "a", port: 6543), .init(host: "b", port: 6543)])
        let c = try PostgresClient.Configuration(url: "postgres://u@/db?host=a,b&port=1,2")
        #expect(c.endpoints == [.init(host: "a", port: 1), .init(host: "b", port: 2)])
        let d = try PostgresClient.Configuration(url: "postgres://u@/db?host=a,b")
        #expect(d.endpoints == [.init(host: "a", port: 5432), .init(host: "b", port: 5432)])
    }

    @Test("every target_session_attrs value libpq knows is accepted")
    func targetSessionAttributes() throws {
        for attributes in PostgresClient.Configuration.TargetSessionAttributes.allCases {
            let c = try PostgresClient.Configuration(url: "postgres://u@a,b/db?target_session_attrs=\(attributes.rawValue)")
            #expect(c.targetSessionAttributes == attributes)
        }
        #expect(try PostgresClient.Configuration(url: "postgres://u@a/db").targetSessionAttributes == nil)
    }

    @Test("a host list is local only when every server is", arguments: [
        ("postgres://u@127.0.0.1:5432,localhost:5433/db", true),
        ("postgres://u@127.0.0.1:5432,db.example.net:5433/db", false),
        ("postgres://u@db.example.net:5432,127.0.0.1:5433/db", false),
    ])
    func multiHostLocality(url: String, local: Bool) throws {
        let c = try PostgresClient.Configuration(url: url)
        #expect(c.isLocal == local)
        #expect((c.firstRemoteEndpoint?.host == "db.example.net") == !local)
    }

    @Test("malformed host lists are configuration errors naming the problem", arguments: [
        ("postgres://u@a:1,,b:2/db", "empty host"),
        ("postgres://u@a:1,/db", "empty host"),
        ("postgres://u@,a/db", "empty host"),
        ("postgres://u@a:1,b:port/db", "port must be"),
        ("postgres://u@a:1,b:70000/db", "port must be"),
        ("postgres://u@a,[fd00::1/db", "unterminated IPv6"),
        ("postgres://u@a,[fd00::1]x/db", "after IPv6"),
        ("postgres://u@a,b,c/db?port=1,2", "port list has 2 entries for 3 hosts"),
        ("postgres://u@a%2Cb/db", "comma"),
        ("postgres://u@a,b/db?target_session_attrs=primary-please", "target_session_attrs must be one of"),
    ])
    func invalidHostList(url: String, reason: String) {
        let e = Self.parseError(url)
        #expect(e?.code == .configuration)
        #expect(e?.message.contains(reason) == true, "\(e?.message ?? "no error")")
    }

    @Test("the description of a host list shows every server and the session attributes, never the password")
    func multiHostRedacted() throws {
        let c = try PostgresClient.Configuration(url: """
                                                      postgres://relay:hunter2secret@db-a:5432,\
                                                      db-b:5433/mailwake?target_session_attrs=read-write
                                                      """)
        #expect(!c.description.contains("hunter2secret"))
        #expect(!String(reflecting: c).contains("hunter2secret"))
        #expect(c.description.contains("postgres://relay:***@db-a:5432,db-b:5433/mailwake"))
        #expect(c.description.contains("target_session_attrs=read-write"))
    }

    @Test("setting endpoints replaces host, port and the rest of the list")
    func settingEndpoints() throws {
        var c = PostgresClient.Configuration()
        c.endpoints = [.init(host: "/run/postgresql", port: 5432), .init(host: "10.0.0.2", port: 5433)]
        #expect(c.unixSocketDirectory == "/run/postgresql")
        #expect(c.additionalEndpoints == [.init(host: "10.0.0.2", port: 5433)])
        #expect(c.endpoints.count == 2)
    }
}
