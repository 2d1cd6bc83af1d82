import CHTTPServerShims
import Foundation
import MailwakeCore
import Synchronization
import TestSupport
import Testing

/// The epoll engine under orderings only its C API can arrange (`mw_http_server.h`, without `HTTPServer`).
@Suite struct EpollEngineTests {
    /// What the engine's callback sees: requests by target; `/hold` keeps the I/O thread busy until released.
    final class Callbacks: Sendable {
        // Safe to send: each request pointer is used once, by the test, to answer; the server's, once, to stop it.
        struct Handle: @unchecked Sendable { let raw: OpaquePointer }
        let requests = Mutex<[String: Handle]>([:])
        let holding = Flag()
        let release = Flag()

        func received(_ raw: OpaquePointer) {
            let target = String(cString: mw_http_request_target(raw))
            requests.withLock { $0[target] = Handle(raw: raw) }
            guard target == "/hold" else { return }
            holding.set()
            // On the engine's own I/O thread (never a pool thread): it stays busy while the test arranges the next batch.
            let deadline = ContinuousClock.now + .seconds(60)
            while !release.isSet, ContinuousClock.now < deadline { usleep(1000) }
        }

        func waitFor(_ target: String) async throws -> OpaquePointer {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if let request = requests.withLock({ $0[target] }) { return request.raw }
                try await Task.sleep(for: .milliseconds(2))
            }
            throw TestHarnessError("no request for \(target)")
        }
    }

    /// An epoll engine with one I/O thread, serving plain HTTP on a free loopback port through `Callbacks`.
    struct Engine {
        let callbacks = Callbacks()
        let server: OpaquePointer
        let port: UInt16
        private let context: Unmanaged<Callbacks>

        init() throws {
            context = Unmanaged.passRetained(callbacks)
            var error = [CChar](repeating: 0, count: 256)
            let ctx = context.toOpaque()
            // An idle timeout no loaded machine reaches: the engine drops a connection quiet that long, and under
            // AddressSanitizer on a loaded CI machine a client took over 30 s to read the last of a 16 MiB answer
            // from its socket after the engine had written it, so the request it sent next found the connection gone.
            guard let server = "127.0.0.1".withCString({ host in
                var config = mw_http_server_config(
                    engine: Int32(MW_HTTP_ENGINE_EPOLL), bind_address: host, port: 0, certificate_pem: nil, private_key_pem: nil,
                    thread_pool_size: 1, connection_limit: 64, per_ip_connection_limit: 0, connection_memory_limit: 16384,
                    idle_timeout_seconds: 600, max_body_bytes: 1024, strict_client_parsing: 1,
                    on_request: { ctx, request in
                        guard let ctx, let request else { return }
                        Unmanaged<Callbacks>.fromOpaque(ctx).takeUnretainedValue().received(request)
                    },
                    on_log: nil, ctx: ctx)
                return mw_http_server_start(&config, &error, error.count)
            }) else {
                context.release()
                throw TestHarnessError("the engine did not start: \(String(nulTerminated: error))")
            }
            self.server = server
            port = mw_http_server_port(server)
        }

        /// A new connection that has sent `GET target` (asking to close after the answer when `closing`).
        func connection(requesting target: String, closing: Bool = false) throws -> RawConnection {
            let connection = try RawConnection(port: port)
            connection.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\(closing ? "Connection: close\r\n" : "")\r\n")
            return connection
        }

        /// Answers the request for `target` once it has arrived.
        func answer(_ target: String, _ body: [UInt8]) async throws {
            EpollEngineTests.answer(try await callbacks.waitFor(target), body)
        }

        func answer(_ target: String, _ text: String) async throws { try await answer(target, Array(text.utf8)) }

        /// Stops the engine (every request must have been answered); 1 when it stopped.
        func stop() async -> Int32 {
            let raw = Callbacks.Handle(raw: server)
            let stopped = await Blocking.run { mw_http_server_stop(raw.raw, 5000) }
            if stopped == 1 { context.release() }
            return stopped
        }
    }

    static func answer(_ raw: OpaquePointer, _ text: String) {
        answer(raw, Array(text.utf8))
    }

    static func answer(_ raw: OpaquePointer, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBufferPointer { mw_http_request_respond(raw, 200, nil, nil, 0, $0.baseAddress, $0.count) }
    }

    /// An answer and its client's reset can reach the I/O thread in one batch of events, the wake-up first: the
    /// connection the answer frees must not be touched by its own event after it (AddressSanitizer sees the difference).
    @Test func anAnswerAndItsClientsResetInOneBatchAreHandledOnce() async throws {
        let engine = try Engine()
        let callbacks = engine.callbacks
        let a = try engine.connection(requesting: "/a")
        let requestA = try await callbacks.waitFor("/a")
        let b = try engine.connection(requesting: "/hold")
        try await callbacks.holding.wait(timeout: .seconds(60))
        // The I/O thread is inside the callback: the answer's wake-up is queued first, then A's reset.
        Self.answer(requestA, "a")
        a.reset()
        callbacks.release.set()
        try await engine.answer("/hold", "held")
        #expect(await b.readResponse()?.text == "held")

        let c = try engine.connection(requesting: "/c", closing: true)
        try await engine.answer("/c", "c")
        #expect(await c.readResponse()?.text == "c", "the engine serves on")
        b.close()
        #expect(await engine.stop() == 1)
    }

    /// A request pipelined behind one answered on another thread (here the test's) waits for that answer, and
    /// both answers arrive in order.
    @Test func aRequestPipelinedBehindAnAnswerFromAnotherThreadIsServedAfterIt() async throws {
        let engine = try Engine()
        let a = try RawConnection(port: engine.port)
        a.send("GET /p1 HTTP/1.1\r\nHost: x\r\n\r\nGET /p2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let first = try await engine.callbacks.waitFor("/p1")
        #expect(engine.callbacks.requests.withLock { $0["/p2"] } == nil, "one request of a connection at a time")
        Self.answer(first, "first")
        try await engine.answer("/p2", "second")
        let text = String(decoding: await a.readToEnd(), as: UTF8.self)
        let one = try #require(text.range(of: "first")), two = try #require(text.range(of: "second"))
        #expect(one.upperBound <= two.lowerBound)
        #expect(text.components(separatedBy: "HTTP/1.1 200 ").count == 3)
        #expect(await engine.stop() == 1)
    }

    /// An answer larger than the socket takes at once is written as the client reads it; the connection then
    /// serves on.
    @Test func anAnswerLargerThanTheSocketTakesIsWrittenAsTheClientReads() async throws {
        let engine = try Engine()
        let a = try engine.connection(requesting: "/big")
        // 16 MiB: more than a loopback socket's send and receive buffers hold together.
        var big = [UInt8](repeating: 0x61, count: 16 << 20)
        for i in stride(from: 0, to: big.count, by: 4096) { big[i] = UInt8(truncatingIfNeeded: i >> 12) }
        try await engine.answer("/big", big)
        let response = await a.readResponse()
        #expect(response?.body == big)
        a.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        try await engine.answer("/next", "next")
        #expect(await a.readResponse()?.text == "next")
        a.close()
        #expect(await engine.stop() == 1)
    }

    /// An answer given on another thread to a client that reset its connection meanwhile is dropped with the
    /// connection, and the engine serves on.
    @Test func anAnswerToAClientThatResetIsDroppedWithItsConnection() async throws {
        let engine = try Engine()
        let a = try engine.connection(requesting: "/a")
        let requestA = try await engine.callbacks.waitFor("/a")
        a.reset()
        // The reset reaches the one I/O thread before this later connection's request does.
        let c = try engine.connection(requesting: "/c")
        let requestC = try await engine.callbacks.waitFor("/c")
        Self.answer(requestA, "a")
        Self.answer(requestC, "c")
        #expect(await c.readResponse()?.text == "c")
        c.close()
        #expect(await engine.stop() == 1)
    }
}
