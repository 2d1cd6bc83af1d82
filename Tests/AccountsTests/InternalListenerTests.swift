import AccountsService
import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
import TestSupport
import Testing

/// `INTERNAL_LISTEN` moves `/internal/*` and `/operator/*` to a listener of their own, over real sockets.
@Suite("Accounts: internal listener", .serialized, .awaitedCleanup)
struct InternalListenerTests {
    static let environment = [
        "MAILWAKE_ACCOUNTS_PUBLIC_ORIGIN": "https://accounts.test", "MAILWAKE_ACCOUNTS_LISTEN": "127.0.0.1:0",
        "MAILWAKE_ACCOUNTS_ADMIN_LISTEN": "127.0.0.1:0", "MAILWAKE_ACCOUNTS_ALLOW_PLAIN_HTTP": "true",
        "MAILWAKE_ACCOUNTS_SERVICE_TOKENS": AccountsFixture.serviceToken,
        "MAILWAKE_ACCOUNTS_OPERATOR_TOKEN": AccountsFixture.operatorToken,
    ]

    @Test func theInternalAndOperatorAPIsAnswerOnlyOnTheInternalListener() async throws {
        let pg = try await PostgresTestServer.shared()
        let name = "accounts_\(UInt64.random(in: 0..<UInt64.max))"
        let admin = PostgresClient(configuration: try .init(url: pg.url), logger: .disabled)
        try await admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        await admin.close()
        var env = Self.environment
        env["MAILWAKE_ACCOUNTS_DATABASE_URL"] = pg.url(database: name)
        env["MAILWAKE_ACCOUNTS_INTERNAL_LISTEN"] = "127.0.0.1:0"
        let configuration = try AccountsConfiguration(AccountsSettings.spec.load(environment: env))
        let database = PostgresClient(configuration: try .init(url: configuration.databaseURL), logger: .disabled)
        let app = AccountsApp(configuration: configuration, database: database, logger: .disabled, metrics: MetricsRegistry(),
                              clock: { Int64(Date().timeIntervalSince1970) })
        try await app.migrate()
        let servers = app.servers()
        try #require(servers.count == 3, "public, admin and internal listeners")
        let (publicServer, internalServer) = (servers[0], servers[2])
        let publicPort = try publicServer.start(), internalPort = try internalServer.start()
        #expect(publicPort != internalPort)
        let tasks = [Task { try await publicServer.run() }, Task { try await internalServer.run() }]
        var c = HTTPClient.Configuration()
        c.httpVersion = .http1_1
        let client = try HTTPClient(configuration: c)
        AwaitedCleanup.register {
            for task in tasks { task.cancel(); _ = try? await task.value }
            client.shutdown()
            await database.close()
        }
        let publicURL = "http://127.0.0.1:\(publicPort)", internalURL = "http://127.0.0.1:\(internalPort)"

        // A device registers on the public listener.
        let signing = try P256.Signing.PrivateKey(), agreement = try P256.KeyAgreement.PrivateKey()
        let deviceID = KeyIdentity.id(of: signing.publicKey)
        let body = Array((#"{"signing_key":"\#(Base64URL.encode(signing.publicKey.x963Representation))","# +
                          #""agreement_key":"\#(Base64URL.encode(agreement.publicKey.x963Representation))","# +
                          #""apns_token":"\#(Hex.encode(try SecureRandom.bytes(32)))","apns_environment":"sandbox","# +
                          #""bundle_id":"net.mailwake.app","app_version":"1.0"}"#).utf8)
        let header = try RequestSigner(key: signing).sign(method: "POST", origin: "https://accounts.test", pathAndQuery: "/v1/devices",
                                                          body: body,
                                                          timestamp: Int64(Date().timeIntervalSince1970))
        let registered = try await client.execute(.init(method: .post, url: publicURL + "/v1/devices",
                                                        headers: ["Content-Type": "application/json", SignatureHeader.name: header.value],
                                                        body: body))
        #expect(registered.status == .created)
        let onInternal = try await client.execute(.init(method: .post, url: internalURL + "/v1/devices",
                                                        headers: ["Content-Type": "application/json", SignatureHeader.name: header.value],
                                                        body: body))
        #expect(onInternal.status == .notFound, "the device API is not on the internal listener")

        let authorization = "/internal/v1/devices/\(deviceID)/authorization"
        let service: HTTPHeaders = ["Authorization": "Bearer \(AccountsFixture.serviceToken)"]
        let internalAnswer = try await client.execute(.init(method: .get, url: internalURL + authorization, headers: service))
        #expect(internalAnswer.status == .ok)
        #expect(internalAnswer.text.contains(deviceID))
        let publicAnswer = try await client.execute(.init(method: .get, url: publicURL + authorization, headers: service))
        #expect(publicAnswer.status == .notFound)
        #expect(publicAnswer.text.contains("urn:mailwake:problem:not-found") && !publicAnswer.text.contains(deviceID))

        let block = "/operator/v1/devices/\(deviceID)/block"
        let operatorHeaders: HTTPHeaders = ["Authorization": "Bearer \(AccountsFixture.operatorToken)", "Content-Type": "application/json"]
        let reason = Array(#"{"reason":"test"}"#.utf8)
        #expect(try await client.execute(.init(method: .put, url: publicURL + block, headers: operatorHeaders,
                                               body: reason)).status == .notFound)
        #expect(try await client.execute(.init(method: .put, url: internalURL + block, headers: operatorHeaders,
                                               body: reason)).status == .noContent)
    }

    @Test func withoutTheSettingEverythingStaysOnThePublicListener() throws {
        var env = Self.environment
        env["MAILWAKE_ACCOUNTS_DATABASE_URL"] = "postgres://accounts@127.0.0.1:1/accounts"
        let configuration = try AccountsConfiguration(AccountsSettings.spec.load(environment: env))
        let database = PostgresClient(configuration: try .init(url: configuration.databaseURL), logger: .disabled)
        let app = AccountsApp(configuration: configuration, database: database, logger: .disabled, metrics: MetricsRegistry(),
                              clock: { 0 })
        #expect(app.servers().count == 2)
    }

    @Test func aNonLoopbackInternalAddressWithoutTLSIsRefusedNamingTheKey() throws {
        var env = Self.environment
        env["MAILWAKE_ACCOUNTS_DATABASE_URL"] = "postgres://accounts@127.0.0.1:1/accounts"
        env["MAILWAKE_ACCOUNTS_INTERNAL_LISTEN"] = "10.0.0.5:9444"
        do {
            _ = try AccountsConfiguration(AccountsSettings.spec.load(environment: env))
            Issue.record("a non-loopback internal listener without TLS was accepted")
        } catch {
            #expect(error.key == "MAILWAKE_ACCOUNTS_INTERNAL_LISTEN")
            #expect(error.description.contains("MAILWAKE_ACCOUNTS_TLS_CERT and MAILWAKE_ACCOUNTS_TLS_KEY are not set"))
        }
    }
}
