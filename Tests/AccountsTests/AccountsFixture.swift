import AccountsService
import MailwakeAppStore
import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPServer
import MailwakeHTTPTesting
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
import Synchronization
import TestSupport

/// An accounts instance on its own fresh database, with a clock the test
/// controls, answering in memory (``Transport/inMemory``, the default) or on a
/// loopback socket (``Transport/socket``, for what only a listener shows).
final class AccountsFixture: Sendable {
    /// How `send` reaches the service.
    enum Transport: Sendable {
        /// Through the router without a socket (`RouterTestClient`).
        case inMemory
        /// Through the public listener on 127.0.0.1, started by the fixture.
        case socket
    }

    static let serviceToken = "relay-service-token-for-tests"
    static let operatorToken = "operator-token-for-tests"

    let app: AccountsApp
    let server: HTTPServer
    /// The running listener's task; nil in memory.
    let serverTask: Task<Void, any Error>?
    /// Answers `send` in memory; nil on a socket.
    let router: RouterTestClient?
    /// An HTTP client for listeners (the public one on a socket, the admin one).
    let client: HTTPClient
    let origin: String
    let testClock: TestClock
    let logs: MemoryLogSink
    /// The latest session each device registration answered, sent as `Mailwake-Session` by `send`.
    let sessions = Mutex<[String: String]>([:])

    private init(app: AccountsApp, server: HTTPServer, serverTask: Task<Void, any Error>?, router: RouterTestClient?, client: HTTPClient,
                 origin: String, logs: MemoryLogSink, clock: TestClock) {
        testClock = clock
        self.app = app
        self.server = server
        self.serverTask = serverTask
        self.router = router
        self.client = client
        self.origin = origin
        self.logs = logs
    }

    static func start(trialDays: Int = 0, productIDs: Set<String> = ["net.mailwake.push.monthly"],
                      appStore: AppStoreJWSVerifier.Configuration? = nil, purchaseDeviceLimit: Int = 5,
                      transport: Transport = .inMemory) async throws -> AccountsFixture {
        let pg = try await PostgresTestServer.shared()
        let name = "accounts_\(UInt64.random(in: 0..<UInt64.max))"
        let admin = PostgresClient(configuration: try .init(url: pg.url), logger: .disabled)
        try await admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        await admin.close()
        let origin = "https://accounts.test"
        var configuration = AccountsConfiguration(
            listenHost: "127.0.0.1", listenPort: 0, adminHost: "127.0.0.1", adminPort: 0, publicOrigin: origin,
            databaseURL: pg.url(database: name), allowPlainHTTP: true, serviceTokens: [serviceToken], operatorToken: operatorToken,
            pushProductIDs: productIDs, trialSeconds: Int64(trialDays) * 86400, appStore: appStore)
        configuration.purchaseDeviceLimit = purchaseDeviceLimit
        let logs = MemoryLogSink()
        let logger = Logger(service: "accounts", level: .debug, sink: logs)
        let database = PostgresClient(configuration: try .init(url: configuration.databaseURL), logger: logger)
        let clock = TestClock()
        let app = AccountsApp(configuration: configuration, database: database, logger: logger, metrics: MetricsRegistry(),
                              clock: { clock.read() })
        try await app.migrate()
        let server = app.servers()[0]
        var task: Task<Void, any Error>?
        var router: RouterTestClient?
        switch transport {
        case .socket:
            try server.start()
            task = Task { try await server.run() }
        case .inMemory:
            router = RouterTestClient(app.router(), logger: logger,
                                      responseHeaders: server.configuration.responseHeaders.map { ($0.name, $0.value) })
        }
        var c = HTTPClient.Configuration()
        c.httpVersion = .http1_1
        let fixture = AccountsFixture(app: app, server: server, serverTask: task, router: router, client: try HTTPClient(configuration: c),
                                      origin: origin, logs: logs, clock: clock)
        AwaitedCleanup.register { await fixture.stop() }
        return fixture
    }

    func stop() async {
        serverTask?.cancel()
        _ = try? await serverTask?.value
        client.shutdown()
        await app.database.close()
    }

    var clock: Int64 { testClock.read() }
    func advance(_ seconds: Int64) { testClock.advance(seconds) }

    /// Sends a request; `signer` signs it as PROTOCOL §8 for this service's origin and, unless
    /// `withoutSession` or `headers` names one, sends the signer's registered session.
    func send(_ method: HTTPMethod, _ path: String, json: String? = nil, signer: P256.Signing.PrivateKey? = nil,
              bearer: String? = nil, headers extra: HTTPHeaders = [:], signedAt: Int64? = nil,
              withoutSession: Bool = false) async throws -> HTTPClient.Response {
        let body = json.map { Array($0.utf8) }
        let baseURL = router == nil ? "http://127.0.0.1:\(server.port)" : origin
        var headers = extra
        if let bearer { headers.add("Authorization", "Bearer \(bearer)") }
        let request: HTTPClient.Request
        if let signer {
            if !withoutSession, extra["Mailwake-Session"] == nil,
               let session = sessions.withLock({ $0[KeyIdentity.id(of: signer.publicKey)] }) {
                headers.add("Mailwake-Session", session)
            }
            request = try .signed(method, baseURL: baseURL, path, body: body, key: signer, origin: origin, timestamp: signedAt ?? clock,
                                  headers: headers)
        } else {
            if body != nil { headers.add("Content-Type", "application/json") }
            request = .init(method: method, url: baseURL + path, headers: headers, body: body)
        }
        if let router { return await router.execute(request) }
        return try await client.execute(request)
    }

    /// The raw JSON object, for the few checks that must see it as sent (null and absent fields); read answers with `decode`.
    func json(_ response: HTTPClient.Response) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    /// A simulated iPhone's keys and token.
    struct Device {
        let signing: P256.Signing.PrivateKey
        let agreement: P256.KeyAgreement.PrivateKey
        let apnsToken: String
        var id: String { KeyIdentity.id(of: signing.publicKey) }

        static func make() throws -> Device {
            Device(signing: try .init(), agreement: try .init(), apnsToken: Hex.encode(try SecureRandom.bytes(32)))
        }

        func registrationJSON(environment: String = "sandbox", recoveryCode: String? = nil) -> String {
            let recovery = recoveryCode.map { #","recovery_code":"\#($0)""# } ?? ""
            let keys = #""signing_key":"\#(Base64URL.encode(signing.publicKey.x963Representation))","#
                + #""agreement_key":"\#(Base64URL.encode(agreement.publicKey.x963Representation))","#
            return #"{\#(keys)"apns_token":"\#(apnsToken)","apns_environment":"\#(environment)","#
                + #""bundle_id":"net.mailwake.app","app_version":"1.0 (42)"\#(recovery)}"#
        }
    }

    /// Registers (or refreshes) `device` and remembers the session it answers.
    func register(_ device: Device, recoveryCode: String? = nil, withoutSession: Bool = false) async throws -> HTTPClient.Response {
        let response = try await send(.post, "/v1/devices", json: device.registrationJSON(recoveryCode: recoveryCode),
                                      signer: device.signing,
                                      withoutSession: withoutSession)
        if response.status == .created || response.status == .ok {
            let session = try response.decode(AccountsResponses.Registration.self).sessionID
            sessions.withLock { $0[device.id] = session }
        }
        return response
    }

    /// The session `send` uses for `device`.
    func session(of device: Device) -> String? { sessions.withLock { $0[device.id] } }
}

/// The time the service under test sees; tests move it forward.
final class TestClock: Sendable {
    private let now = Mutex<Int64>(1_764_400_000)
    func read() -> Int64 { now.withLock { $0 } }
    func advance(_ seconds: Int64) { now.withLock { $0 += seconds } }
}
