import AccountsService
import Foundation
import MailwakeCore
import MailwakePostgres
import TestSupport
import Testing

/// `MAILWAKE_ACCOUNTS_PER_IP_CONNECTION_LIMIT`: a setting, default unchanged (128).
@Suite("Accounts: per-IP connection limit")
struct ConnectionLimitTests {
    static func configuration(_ extra: [String: String] = [:]) throws -> AccountsConfiguration {
        var env = [
            "MAILWAKE_ACCOUNTS_PUBLIC_ORIGIN": "https://accounts.example.net",
            "MAILWAKE_ACCOUNTS_DATABASE_URL": "postgres://accounts@127.0.0.1:1/accounts",
            "MAILWAKE_ACCOUNTS_LISTEN": "127.0.0.1:0", "MAILWAKE_ACCOUNTS_ALLOW_PLAIN_HTTP": "true",
        ]
        for (k, v) in extra { env[k] = v }
        return try AccountsConfiguration(try AccountsSettings.spec.load(environment: env))
    }

    @Test func theDefaultIsUnchangedAndZeroOrANumberIsAccepted() throws {
        #expect(try Self.configuration().perIPConnectionLimit == 128)
        #expect(try Self.configuration(["MAILWAKE_ACCOUNTS_PER_IP_CONNECTION_LIMIT": "0"]).perIPConnectionLimit == 0)
        #expect(throws: ConfigurationError.self) { try Self.configuration(["MAILWAKE_ACCOUNTS_PER_IP_CONNECTION_LIMIT": "-1"]) }
    }

    @Test func thePublicListenerRefusesConnectionsBeyondTheSetting() async throws {
        let configuration = try Self.configuration(["MAILWAKE_ACCOUNTS_PER_IP_CONNECTION_LIMIT": "2"])
        let database = PostgresClient(configuration: try .init(url: configuration.databaseURL), logger: .disabled)
        let app = AccountsApp(configuration: configuration, database: database, logger: .disabled, metrics: MetricsRegistry(),
                              clock: { 0 })
        let server = app.servers()[0]
        #expect(server.configuration.perIPConnectionLimit == 2)
        let port = try server.start()
        let task = Task { try await server.run() }
        let a = try RawConnection(port: port), b = try RawConnection(port: port)
        a.send("GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n")
        b.send("GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await a.readResponse()?.status == 404)
        #expect(await b.readResponse()?.status == 404)
        let c = try RawConnection(port: port, receiveTimeoutSeconds: 3)
        c.send("GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await c.readResponse() == nil, "a third connection from the same address is closed unanswered")
        a.close()
        b.close()
        c.close()
        task.cancel()
        _ = try? await task.value
        await database.close()
    }
}
