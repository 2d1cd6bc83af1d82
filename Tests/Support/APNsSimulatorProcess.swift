import Foundation
public import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import Synchronization
import Testing

/// The APNs simulator (`mailwake-apns-simulator serve`) as a child process
/// for a test, with a fresh provider key, TLS certificate and record file,
/// and typed access to its `/_sim/` control API over HTTP/2.
///
/// ```swift
/// let sim = try await APNsSimulatorProcess.start(topic: "net.mailwake.app")
/// // point the relay at sim.url, trusting sim.caFile, signing with sim.keyFile / sim.keyID / sim.teamID
/// let received = try await sim.waitForDeliveries(count: 1, timeout: 10)
/// ```
///
/// `start` registers the stop with `AwaitedCleanup` (the suite needs the
/// `.awaitedCleanup` trait); `stop()` may also be called earlier. The
/// simulator's log is checked for sanitizer reports when it stops.
public final class APNsSimulatorProcess: Sendable {
    /// The bound port on 127.0.0.1.
    public let port: UInt16
    /// The bundle id the simulator accepts as `apns-topic`.
    public let topic: String
    /// The CA certificate (PEM) that signed the simulator's TLS certificate.
    public let caFile: String
    /// The provider token key: PKCS#8 PEM (Apple's `.p8` format), mode 0600.
    public let keyFile: String
    /// The same key's public half (PEM `PUBLIC KEY`).
    public let publicKeyFile: String
    /// The `kid` of provider tokens: `SIMKEY0001`.
    public let keyID: String
    /// The `iss` of provider tokens: `SIMTEAM001`.
    public let teamID: String
    /// The provider token key.
    public let signingKey: P256.Signing.PrivateKey
    /// The `--record` file: every request received, one JSON line each.
    public let recordFile: String

    private let directory: URL
    private let certificates: TestCertificates
    private let process: TestServerProcess
    private let client: HTTPClient
    private let stopped = Mutex(false)

    /// `https://127.0.0.1:<port>`.
    public var url: String { "https://127.0.0.1:\(port)" }

    /// The built `mailwake-apns-simulator`: `$MAILWAKE_APNS_SIMULATOR`, else
    /// next to the running test binary (`swift build --show-bin-path`, which
    /// `swift test` builds along with the tests, sanitizer builds included).
    public static var executable: String {
        if let path = ProcessInfo.processInfo.environment["MAILWAKE_APNS_SIMULATOR"], !path.isEmpty { return path }
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return binary.deletingLastPathComponent().appendingPathComponent("mailwake-apns-simulator").path
    }

    private init(port: UInt16, topic: String, directory: URL, certificates: TestCertificates, keyFile: String, publicKeyFile: String,
                 signingKey: P256.Signing.PrivateKey, recordFile: String, process: TestServerProcess, client: HTTPClient) {
        self.port = port
        self.topic = topic
        self.directory = directory
        self.certificates = certificates
        caFile = certificates.caCertificate.path
        self.keyFile = keyFile
        self.publicKeyFile = publicKeyFile
        keyID = "SIMKEY0001"
        teamID = "SIMTEAM001"
        self.signingKey = signingKey
        self.recordFile = recordFile
        self.process = process
        self.client = client
    }

    /// Starts a simulator for `topic` and waits until it listens.
    public static func start(topic: String = "net.mailwake.app", options: [Option] = []) async throws -> APNsSimulatorProcess {
        let executable = Self.executable
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestHarnessError("\(executable) is missing: build it with `swift build` (or set MAILWAKE_APNS_SIMULATOR)")
        }
        let certificates = try await TestCertificates.generate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-apns-sim-\(UUID().uuidString)",
                                                                                      isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let signingKey = try P256.Signing.PrivateKey()
            let keyFile = directory.appendingPathComponent("AuthKey_SIMKEY0001.p8").path
            let publicKeyFile = directory.appendingPathComponent("AuthKey_SIMKEY0001.pub.pem").path
            guard FileManager.default.createFile(atPath: keyFile, contents: Data(signingKey.pemRepresentation.utf8),
                                                 attributes: [.posixPermissions: 0o600]),
                  FileManager.default.createFile(atPath: publicKeyFile, contents: Data(signingKey.publicKey.pemRepresentation.utf8))
            else { throw TestHarnessError("cannot write the provider key to \(directory.path)") }
            let recordFile = directory.appendingPathComponent("deliveries.jsonl").path

            var arguments = [
                "serve", "--listen", "127.0.0.1:0", "--tls-cert", certificates.serverCertificate.path, "--tls-key",
                certificates.serverKey.path,
                "--key-file", options.contains(.publicKeyFile) ? publicKeyFile : keyFile, "--key-id", "SIMKEY0001", "--team-id",
                "SIMTEAM001",
                "--topic", topic, "--record", recordFile,
            ]
            for option in options { arguments += option.arguments }
            if !options.contains(.appleLenient) { arguments.append("--strict") }
            let process = try TestServerProcess(executable: executable, arguments: arguments, logName: "apns-simulator", pipeStdout: true)
            // A simulator that neither prints nor exits is killed after 60 s,
            // which ends the read with EOF.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(60))
                await Blocking.run { process.stop(keepLog: true) }
            }
            let line = await Blocking.run { process.readStdoutLine() } ?? ""
            watchdog.cancel()
            guard let port = Self.listeningPort(line) else {
                await Blocking.run { process.stop(keepLog: true) }
                let log = process.logText()
                try? FileManager.default.removeItem(at: process.logFile)
                throw TestHarnessError("mailwake-apns-simulator did not report a port (stdout: \(line)): \(log.suffix(2000))")
            }
            var configuration = HTTPClient.Configuration()
            configuration.caFile = certificates.caCertificate.path
            configuration.name = "apns-simulator-control"
            configuration.connectTimeout = .seconds(60)
            configuration.maxResponseBytes = 256 << 20
            let client = try HTTPClient(configuration: configuration)
            let simulator = APNsSimulatorProcess(port: port, topic: topic, directory: directory, certificates: certificates,
                                                 keyFile: keyFile,
                                                 publicKeyFile: publicKeyFile, signingKey: signingKey, recordFile: recordFile,
                                                 process: process, client: client)
            AwaitedCleanup.register { await simulator.stop() }
            return simulator
        } catch {
            try? FileManager.default.removeItem(at: directory)
            certificates.remove()
            throw error
        }
    }

    /// The port of `{"event":"listening","port":N}`.
    static func listeningPort(_ line: String) -> UInt16? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              object["event"] as? String == "listening", let port = object["port"] as? Int
        else { return nil }
        return UInt16(exactly: port)
    }

    // MARK: control API

    /// The deliveries after `since` (every request received on
    /// `/3/device/`, refused ones included), oldest first.
    public func deliveries(since: UInt64 = 0) async throws -> [Delivery] {
        var all: [Delivery] = []
        var cursor = since
        while true {
            let page = try await get("/_sim/deliveries?since=\(cursor)&limit=10000", as: DeliveryPage.self)
            all += page.deliveries
            guard page.deliveries.count == 10000 else { return all }
            cursor = page.next
        }
    }

    /// Polls until at least `count` deliveries after `since` have arrived and
    /// returns them all; throws when `timeout` seconds pass first.
    public func waitForDeliveries(count: Int, timeout: Double = 60, since: UInt64 = 0) async throws -> [Delivery] {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var seen: [Delivery] = []
        var cursor = since
        while true {
            let more = try await deliveries(since: cursor)
            seen += more
            cursor = seen.last?.seq ?? cursor
            if seen.count >= count { return seen }
            guard ContinuousClock.now < deadline else {
                throw TestHarnessError("the APNs simulator received \(seen.count) of \(count) expected deliveries in \(timeout) s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The next `times` requests for `token` (every request when nil) that
    /// pass APNs's checks are answered with `status` and `reason`, each held
    /// back `latencyMS`; a 410 carries `timestamp` (default: the request time).
    public func setBehaviour(token: String, status: Int, reason: String? = nil, times: Int? = nil, latencyMS: Int? = nil,
                             timestamp: Int64? = nil) async throws {
        let body: [String: Any] = [
            "token": token, "status": status, "reason": reason ?? NSNull(), "times": times ?? NSNull(),
            "latency_ms": latencyMS ?? NSNull(), "timestamp": timestamp ?? NSNull(),
        ]
        try await send(.post, "/_sim/behaviours", json: body)
    }

    /// Removes every per-token behaviour.
    public func clearBehaviours() async throws { try await send(.delete, "/_sim/behaviours") }

    /// Forgets the deliveries held in memory (sequence numbers keep growing).
    public func clearDeliveries() async throws { try await send(.delete, "/_sim/deliveries") }

    /// Changes the given settings: latency of every answer, random failure
    /// rates by status (replacing the previous table), GOAWAY after N
    /// streams per connection (0: off), and the stream limit announced to
    /// new connections.
    public func configure(latencyMS: Int? = nil, rates: [Int: Double]? = nil, goawayAfter: Int? = nil,
                          maxConcurrentStreams: Int? = nil) async throws {
        var body: [String: Any] = [:]
        if let latencyMS { body["latency_ms"] = latencyMS }
        if let rates { body["rates"] = Dictionary(uniqueKeysWithValues: rates.map { (String($0.key), $0.value) }) }
        if let goawayAfter { body["goaway_after"] = goawayAfter }
        if let maxConcurrentStreams { body["max_concurrent_streams"] = maxConcurrentStreams }
        try await send(.post, "/_sim/config", json: body)
    }

    /// Sends GOAWAY on one connection (the `connection` of a delivery) or on
    /// all of them; returns how many connections were asked.
    @discardableResult
    public func goaway(connection: UInt64? = nil) async throws -> Int {
        let body: [String: Any] = connection.map { ["connection": $0] } ?? [:]
        let response = try await send(.post, "/_sim/goaway", json: body)
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return object?["connections"] as? Int ?? 0
    }

    /// Counts by status and reason, total, connections.
    public func stats() async throws -> Stats { try await get("/_sim/stats", as: Stats.self) }

    /// The lines of the record file so far.
    public func recordedLines() throws -> [String] {
        guard let text = ChildProcess.readTextFile(recordFile) else { throw TestHarnessError("cannot read \(recordFile)") }
        return text.split(separator: "\n").map(String.init)
    }

    /// The simulator's log (JSON lines on stderr) so far.
    public func logText() -> String { process.logText() }

    /// Stops the simulator (SIGTERM), records an issue when its log shows a
    /// sanitizer report or a crash, and removes its files. Idempotent.
    public func stop() async { _ = await stopReturningLog() }

    /// `stop()`, returning the simulator's log (empty when it was already stopped).
    public func stopReturningLog() async -> String {
        guard stopped.withLock({ s in defer { s = true }; return !s }) else { return "" }
        let process = self.process
        let client = self.client
        await Blocking.run {
            client.shutdown()
            process.stop(keepLog: true)
        }
        let log = process.logText()
        for marker in ["ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "Fatal error:"] where log.contains(marker) {
            Issue.record("mailwake-apns-simulator reported \(marker):\n\(log.suffix(20000))")
            break
        }
        try? FileManager.default.removeItem(at: process.logFile)
        try? FileManager.default.removeItem(at: directory)
        certificates.remove()
        return log
    }

    // MARK: HTTP

    private struct DeliveryPage: Decodable {
        let deliveries: [Delivery]
        let next: UInt64
    }

    @discardableResult
    func send(_ method: HTTPMethod, _ path: String, json: [String: Any]? = nil) async throws -> HTTPClient.Response {
        let body = try json.map { Array(try JSONSerialization.data(withJSONObject: $0)) }
        let request = HTTPClient.Request(method: method, url: url + path, headers: ["content-type": "application/json"], body: body)
        var attempt = 0
        var response: HTTPClient.Response
        while true {
            do {
                response = try await client.execute(request)
                break
            } catch let error as HTTPClientError where error.isRetryable && attempt < 3 {
                // A GOAWAY the test asked for may have closed the control connection.
                attempt += 1
            }
        }
        guard response.status == .ok else {
            throw TestHarnessError("\(method.rawValue) \(path) answered \(response.status.code): \(response.text)")
        }
        return response
    }

    func get<T: Decodable>(_ path: String, as type: T.Type) async throws -> T {
        let response = try await send(.get, path)
        return try JSONDecoder().decode(T.self, from: Data(response.body))
    }
}
