import Foundation
import MailwakeCore
import MailwakeHTTPServer
import MailwakeHTTPTypes
import Synchronization
import TestSupport

/// A local HTTP receiver standing in for a Bark server, the Pushover API or
/// a webhook endpoint: records every request and answers with the statuses
/// queued for it (then 200 with `okBody`).
final class RecordingReceiver: Sendable {
    struct Received: Sendable {
        let path: String
        let headers: HTTPHeaders
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let port: UInt16
    private let server: HTTPServer
    private let task: Task<Void, any Error>
    private let state = Mutex<(received: [Received], statuses: [Int])>(([], []))

    var url: String { "http://127.0.0.1:\(port)" }

    static func start(okBody: String = "{\"status\":1,\"code\":200}") throws -> RecordingReceiver {
        try RecordingReceiver(okBody: okBody)
    }

    private init(okBody: String) throws {
        let box = StateBox()
        var router = Router()
        for path in ["/push", "/1/messages.json", "/hook"] {
            router.post(path) { request, _ in
                box.receiver?.record(Received(path: String(request.rawPath), headers: request.headers,
                                              body: request.body)) ?? HTTPResponse(status: .ok)
            }
        }
        var c = HTTPServer.Configuration()
        c.port = 0
        c.allowPlainHTTP = true
        c.drainTimeoutSeconds = 1
        server = HTTPServer(configuration: c, router: router, logger: .disabled, metrics: MetricsRegistry())
        port = try server.start()
        task = Task { [server] in try await server.run() }
        self.okBody = okBody
        box.receiver = self
        AwaitedCleanup.register { [server, task] in
            task.cancel()
            await server.shutdown()
        }
    }

    private let okBody: String

    /// The next requests are answered with these statuses, in order.
    func answer(_ statuses: [Int]) { state.withLock { $0.statuses += statuses } }

    var received: [Received] { state.withLock { $0.received } }

    func waitFor(count: Int, timeout: Double = 60) async throws -> [Received] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while received.count < count {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("the receiver got \(received.count) of \(count) requests") }
            try await Task.sleep(for: .milliseconds(50))
        }
        return received
    }

    private func record(_ r: Received) -> HTTPResponse {
        let status = state.withLock { s -> Int in
            s.received.append(r)
            return s.statuses.isEmpty ? 200 : s.statuses.removeFirst()
        }
        return HTTPResponse(status: HTTPStatus(status), headers: ["content-type": "application/json"],
                            body: Array((status == 200 ? okBody : "{\"status\":0,\"errors\":[\"refused by the test\"]}").utf8))
    }

    // @unchecked Sendable is safe because `receiver` is written once during init, before the server takes requests.
    private final class StateBox: @unchecked Sendable {
        weak var receiver: RecordingReceiver?
    }
}
