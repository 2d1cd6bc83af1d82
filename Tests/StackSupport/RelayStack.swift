import Foundation
public import MailwakeAppStore
public import MailwakeCrypto
public import MailwakeHTTPClient
import MailwakeCore
import MailwakeHTTPTesting
public import MailwakeHTTPTypes
public import MailwakeProtocol
public import RelayService
public import TestSupport

/// PostgreSQL, accounts, the APNs simulator and a relay, wired together for
/// one test, with the calls an outpost and a device make.
public final class RelayStack: Sendable {
    /// How `send` reaches the relay; the relay's listeners run either way (outposts, devices and the admin API use them).
    public enum Transport: Sendable {
        /// Over the public listener on 127.0.0.1.
        case socket
        /// Through the relay's router without a socket (`RouterTestClient`), for route tests.
        case inMemory
    }

    public let postgres: PostgresTestServer
    public let accounts: AccountsInstance
    public let simulator: APNsSimulatorProcess
    public let relay: RelayInstance
    public let relayDatabaseURL: String
    public let client: HTTPClient
    /// Answers `send` when the stack runs in memory.
    let router: RouterTestClient?

    private init(postgres: PostgresTestServer, accounts: AccountsInstance, simulator: APNsSimulatorProcess, relay: RelayInstance,
                 relayDatabaseURL: String, client: HTTPClient, router: RouterTestClient?) {
        self.router = router
        self.postgres = postgres
        self.accounts = accounts
        self.simulator = simulator
        self.relay = relay
        self.relayDatabaseURL = relayDatabaseURL
        self.client = client
    }

    /// Starts the stack; `adjust` changes the relay's configuration first.
    public static func start(postgres: PostgresTestServer? = nil, trialDays: Int = 7, appStore: AppStoreJWSVerifier.Configuration? = nil,
                             simulatorOptions: [APNsSimulatorProcess.Option] = [],
                             adjust: @Sendable (inout RelayConfiguration) -> Void = { _ in },
                             clockMS: (@Sendable () -> Int64)? = nil, transport: Transport = .socket) async throws -> RelayStack {
        let pg: PostgresTestServer
        if let postgres { pg = postgres } else { pg = try await PostgresTestServer.shared() }
        let accounts = try await AccountsInstance.start(postgres: pg, trialDays: trialDays, appStore: appStore)
        AwaitedCleanup.register { await accounts.stop() }
        let simulator = try await APNsSimulatorProcess.start(topic: RelayInstance.bundleID, options: simulatorOptions)
        let relayDatabase = pg.url(database: try await StackDatabases.create(prefix: "relay", on: pg))
        var configuration = RelayInstance.configuration(databaseURL: relayDatabase, accounts: accounts, simulator: simulator)
        adjust(&configuration)
        let relay = try await RelayInstance.start(configuration, clockMS: clockMS)
        var c = HTTPClient.Configuration()
        c.httpVersion = .http1_1
        let router = transport == .inMemory ? RouterTestClient(relay.app.router(),
                                                               logger: Logger(service: "relay", level: .debug, sink: relay.logs)) : nil
        let stack = RelayStack(postgres: pg, accounts: accounts, simulator: simulator, relay: relay, relayDatabaseURL: relayDatabase,
                               client: try HTTPClient(configuration: c), router: router)
        AwaitedCleanup.register { await stack.stopRelayAndClient() }
        return stack
    }

    private func stopRelayAndClient() async {
        await relay.stop()
        client.shutdown()
    }

    /// Waits until the relay holds `eventID` queued for a retry (attempted at least once, not in flight); throws after `timeout` seconds.
    public func waitUntilQueuedForRetry(_ eventID: String, timeout: Double = 30) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while try await relay.app.database.query("""
            SELECT 1 FROM deliveries WHERE event_id = \(eventID) AND status = 'queued' AND attempts >= 1
            """).isEmpty {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("delivery \(eventID) was not queued for a retry within " +
                                                                               "\(timeout) s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A request to the relay; `signer` signs it (PROTOCOL.md §8) for the relay's origin.
    public func send(_ method: HTTPMethod, _ path: String, body: [UInt8]? = nil, signer: P256.Signing.PrivateKey? = nil,
                     signedAt: Int64? = nil, to base: String? = nil,
                     headers extra: HTTPHeaders = [:]) async throws -> HTTPClient.Response {
        let url = base ?? relay.url
        let request: HTTPClient.Request
        if let signer {
            request = try SignedHTTPClient(http: client, origin: RelayInstance.origin, key: signer, baseURL: url)
                .request(method, path, body: body, headers: extra, timestamp: signedAt)
        } else {
            var headers = extra
            if body != nil { headers.add("Content-Type", "application/json") }
            request = .init(method: method, url: url + path, headers: headers, body: body)
        }
        if let router, base == nil { return await router.execute(request) }
        return try await client.execute(request)
    }

    /// The JSON object of a response body.
    public func json(_ response: HTTPClient.Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    /// A device registered at accounts.
    public func registeredDevice() async throws -> SimulatedDevice {
        let device = try SimulatedDevice()
        try await device.register(at: accounts, client: client)
        return device
    }

    /// Runs the whole pairing of PROTOCOL.md §9 and returns the pairing id.
    public func pair(_ outpost: SimulatedOutpost, _ device: SimulatedDevice) async throws -> String {
        let (registration, link) = try outpost.pairingOffer()
        let registered = try await send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        guard registered.status == .created else { throw TestHarnessError("pairing registration answered \(registered.status.code): " +
                                                                          "\(registered.text)") }
        let consented = try await send(.post, "/v1/pairings/\(link.pairingID)/consent", body: try device.consent(to: link).jsonBytes)
        guard consented.status == .accepted else { throw TestHarnessError("consent answered \(consented.status.code): \(consented.text)") }
        let fetched = try await send(.get, "/v1/pairings/\(link.pairingID)/consent?wait=5", signer: outpost.identity)
        guard fetched.status == .ok,
              let consent = json(fetched)["consent"] else { throw TestHarnessError("consent fetch answered \(fetched.status.code)") }
        let decoded = try PairingConsent.decode(Array(try JSONSerialization.data(withJSONObject: consent)))
        try decoded.verify(outpostKey: outpost.publicKey.x963Representation, secrets: try PairingSecrets(credential: link.credential),
                           audience: link.relay, pairingID: link.pairingID, expectedExpiry: link.expiresAt,
                           now: Int64(Date().timeIntervalSince1970))
        let confirmed = try await send(.post, "/v1/pairings/\(link.pairingID)/confirm", signer: outpost.identity)
        guard confirmed.status == .ok else { throw TestHarnessError("confirm answered \(confirmed.status.code)") }
        return link.pairingID
    }

    /// Submits an envelope as an outpost does.
    public func submit(_ envelope: Envelope) async throws -> HTTPClient.Response {
        try await send(.post, "/v1/envelopes", body: envelope.jsonBytes)
    }
}
