import Foundation
import MailwakeCore
import MailwakeHTTPServer
import MailwakeHTTPTypes
import TestSupport

/// A server under test on a free loopback port, with its logs and metrics.
struct ServerFixture {
    let server: HTTPServer
    let port: UInt16
    let logs: MemoryLogSink
    let metrics: MetricsRegistry
    let task: Task<Void, any Error>

    /// Starts `router` (plain HTTP on loopback unless `tls` is given).
    static func start(_ router: Router, tls: TestCertificates? = nil,
                      configure: (inout HTTPServer.Configuration) -> Void = { _ in }) throws -> ServerFixture {
        var c = HTTPServer.Configuration()
        c.port = 0
        c.allowPlainHTTP = tls == nil
        c.tls = tls.map { .init(certificatePath: $0.serverCertificate.path, privateKeyPath: $0.serverKey.path) }
        c.drainTimeoutSeconds = 2
        c.metricsPrefix = "mailwake_test"
        if let engine = ProcessInfo.processInfo.environment["MAILWAKE_TEST_HTTP_ENGINE"].flatMap(HTTPServer.Configuration.Engine.init) {
            c.engine = engine
        }
        configure(&c)
        let logs = MemoryLogSink()
        let metrics = MetricsRegistry()
        let server = HTTPServer(configuration: c, router: router, logger: Logger(service: "test", level: .debug, sink: logs),
                                metrics: metrics)
        let port = try server.start()
        let task = Task { try await server.run() }
        let fixture = ServerFixture(server: server, port: port, logs: logs, metrics: metrics, task: task)
        AwaitedCleanup.register { await fixture.stop() }
        return fixture
    }

    /// Cancels `run()` and waits for the drain to finish.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// One request over a fresh plain connection.
    func request(_ raw: String) async throws -> RawResponse {
        let c = try RawConnection(port: port)
        c.send(raw)
        guard let response = await c.readResponse() else { throw TestHarnessError("no response") }
        return response
    }

    func get(_ target: String, headers: String = "") async throws -> RawResponse {
        try await request("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\(headers)Connection: close\r\n\r\n")
    }

    func post(_ target: String, body: String, contentType: String = "application/json") async throws -> RawResponse {
        try await request("POST \(target) HTTP/1.1\r\nHost: localhost\r\nContent-Type: \(contentType)\r\nContent-Length: " +
                          "\(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    }
}

/// Echoes what it got, for tests.
struct Echo: Codable, Sendable {
    var name: String
    var count: Int
}

/// A one-shot latch a handler can wait on (signalled from the test).
final class Latch: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream() }

    func signal() { continuation.yield(); continuation.finish() }

    func wait() async { for await _ in stream { return } }
}
