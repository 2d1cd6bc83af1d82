import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// Requests beyond what the multi handle can run at once wait in the client's
/// own first-in, first-out queue (docs/http-client.md, "Queueing").
@Suite struct RequestQueueTests {
    /// The client's `queued` gauge.
    static func queued(_ registry: MetricsRegistry) -> Gauge {
        registry.gauge("mailwake_http_client_queued", help: "HTTP client requests waiting for a connection or stream.",
                       labels: ["client": "queue"])
    }

    /// The client's `in_flight` gauge.
    static func inFlight(_ registry: MetricsRegistry) -> Gauge {
        registry.gauge("mailwake_http_client_in_flight", help: "HTTP client requests in flight.", labels: ["client": "queue"])
    }

    /// Waits until `condition` holds (polling; events, not a fixed sleep), at most 30 s.
    static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Runs `body` with a client that has one HTTP/1.1 connection (one
    /// request at a time in libcurl, the rest queued), its metrics, the Python
    /// test server, and a request to `/never` that the server has received:
    /// the one slot is taken until that request is cancelled.
    static func withSlotTaken(_ body: (HTTPClient, PythonHTTPTestServer, MetricsRegistry, Task<HTTPClient.Response,
                                       any Error>) async throws -> Void) async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let registry = MetricsRegistry()
            let client = try HTTPClient(configuration: .trusting(certificates) {
                $0.httpVersion = .http1_1
                $0.maxConnectionsPerHost = 1
                $0.name = "queue"
            }, metrics: registry)
            defer { client.shutdown() }
            let blocker = Task { try await client.execute(.init(url: server.baseURL + "/never")) }
            try await waitUntil("the server got /never") { server.logText().contains("/never") }
            try await body(client, server, registry, blocker)
        }
    }

    @Test func tenThousandRequestsQueuedAtOnceAllComplete() async throws {
        try await withCertificates { certificates in
            let server = try await NGHTTPDServer.start(certificates: certificates)
            defer { server.stop() }
            try server.addFile("small", Array("queued".utf8))
            let registry = MetricsRegistry()
            // 2 connections × 100 streams in libcurl at once; the rest wait in the queue.
            let client = try HTTPClient(configuration: .trusting(certificates) {
                $0.maxConnectionsPerHost = 2
                $0.name = "queue"
            }, metrics: registry)
            defer { client.shutdown() }
            let url = server.baseURL + "/small"
            let count = 10_000

            let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        let r = try await client.execute(.init(url: url))
                        return r.status == .ok && r.text == "queued"
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(ok == count)
            #expect(Self.queued(registry).current == 0)
            #expect(Self.inFlight(registry).current == 0)
        }
    }

    @Test func queuedRequestsStartInTheOrderTheyWereMade() async throws {
        try await Self.withSlotTaken { client, server, registry, blocker in

            var tasks: [Task<HTTPClient.Response, any Error>] = []
            for i in 0..<5 {
                tasks.append(Task { try await client.execute(.init(url: server.baseURL + "/echo?order=\(i)")) })
                try await Self.waitUntil("request \(i) is queued") { Self.queued(registry).current == Double(i + 1) }
            }
            blocker.cancel()
            _ = await blocker.result
            for task in tasks { #expect(try await task.value.status == .ok) }
            let log = server.logText()
            let positions = (0..<5).map { log.range(of: "/echo?order=\($0)")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        }
    }

    @Test func cancellingQueuedRequestsReleasesThemUnsent() async throws {
        try await Self.withSlotTaken { client, server, registry, blocker in

            let queued = (0..<10).map { i in Task { try await client.execute(.init(url: server.baseURL + "/echo?queued=\(i)")) } }
            try await Self.waitUntil("ten requests are queued") { Self.queued(registry).current == 10 }
            for task in queued { task.cancel() }
            // CancellationError while the slot is still taken: they left the queue itself.
            for task in queued { #expect(await thrownError { try await task.value } is CancellationError) }
            #expect(Self.queued(registry).current == 0)
            #expect(Self.inFlight(registry).current == 1)
            #expect(!server.logText().contains("/echo?queued"))

            blocker.cancel()
            #expect(await thrownError { try await blocker.value } is CancellationError)
            // The slot is free again for the next request.
            #expect(try await client.execute(.init(url: server.baseURL + "/echo?after")).status == .ok)
            #expect(Self.inFlight(registry).current == 0)
        }
    }

    @Test func aQueuedRequestTimesOutInTheQueueCountingFromExecute() async throws {
        try await Self.withSlotTaken { client, server, registry, blocker in

            // The slot never frees (the blocker has the default 30 s): the
            // timeout ends the queued request while it waits, unsent.
            let error = await thrownError { try await client.execute(.init(url: server.baseURL + "/echo?late",
                                                                           timeout: .milliseconds(300))) } as? HTTPClientError
            #expect(error?.code == .timeout)
            #expect(error?.message.contains("queue") == true)
            #expect(!server.logText().contains("/echo?late"))
            #expect(Self.queued(registry).current == 0)
            blocker.cancel()
            _ = await blocker.result
        }
    }

    @Test func shutdownFailsQueuedRequests() async throws {
        try await Self.withSlotTaken { client, server, registry, blocker in
            let queued = (0..<5).map { _ in Task { try await client.execute(.init(url: server.baseURL + "/echo")) } }
            try await Self.waitUntil("five requests are queued") { Self.queued(registry).current == 5 }

            client.shutdown()
            #expect(await clientErrorCode { try await blocker.value } == .shutdown)
            for task in queued { #expect(await clientErrorCode { try await task.value } == .shutdown) }
            #expect(Self.queued(registry).current == 0)
            #expect(Self.inFlight(registry).current == 0)
        }
    }
}
