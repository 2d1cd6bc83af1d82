import CHTTPServerShims
import Foundation
import Synchronization
import TestSupport
import Testing

/// The epoll engine under orderings only its C API can arrange (`mw_http_server.h`, without `HTTPServer`).
@Suite struct EpollEngineTests {
    /// What the engine's callback sees: requests by target; `/hold` keeps the I/O thread busy until released.
    final class Callbacks: Sendable {
        // Safe to send: the request pointers are used once each, by the test, to answer.
        struct Request: @unchecked Sendable { let raw: OpaquePointer }
        let requests = Mutex<[String: Request]>([:])
        let holding = Flag()
        let release = Flag()

        func received(_ raw: OpaquePointer) {
            let target = String(cString: mw_http_request_target(raw))
            requests.withLock { $0[target] = Request(raw: raw) }
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

    static func answer(_ raw: OpaquePointer, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { mw_http_request_respond(raw, 200, nil, nil, 0, $0.baseAddress, $0.count) }
    }

    /// An answer and its client's reset can reach the I/O thread in one batch of events, the wake-up first: the
    /// connection the answer frees must not be touched by its own event after it (AddressSanitizer sees the difference).
    @Test func anAnswerAndItsClientsResetInOneBatchAreHandledOnce() async throws {
        let callbacks = Callbacks()
        let context = Unmanaged.passRetained(callbacks)
        var error = [CChar](repeating: 0, count: 256)
        let server = try #require("127.0.0.1".withCString { host in
            var config = mw_http_server_config(
                engine: Int32(MW_HTTP_ENGINE_EPOLL), bind_address: host, port: 0, certificate_pem: nil, private_key_pem: nil,
                thread_pool_size: 1, connection_limit: 64, per_ip_connection_limit: 0, connection_memory_limit: 16384,
                idle_timeout_seconds: 30, max_body_bytes: 1024, strict_client_parsing: 1,
                on_request: { ctx, request in
                    guard let ctx, let request else { return }
                    Unmanaged<Callbacks>.fromOpaque(ctx).takeUnretainedValue().received(request)
                },
                on_log: nil, ctx: context.toOpaque())
            return mw_http_server_start(&config, &error, error.count)
        })
        let port = mw_http_server_port(server)

        let a = try RawConnection(port: port)
        a.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let requestA = try await callbacks.waitFor("/a")
        let b = try RawConnection(port: port)
        b.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
        try await callbacks.holding.wait(timeout: .seconds(60))
        // The I/O thread is inside the callback: the answer's wake-up is queued first, then A's reset.
        Self.answer(requestA, "a")
        a.reset()
        callbacks.release.set()
        Self.answer(try await callbacks.waitFor("/hold"), "held")
        #expect(await b.readResponse()?.text == "held")

        let c = try RawConnection(port: port)
        c.send("GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        Self.answer(try await callbacks.waitFor("/c"), "c")
        #expect(await c.readResponse()?.text == "c", "the engine serves on")
        b.close()
        let raw = Callbacks.Request(raw: server)
        #expect(await Blocking.run { mw_http_server_stop(raw.raw, 5000) } == 1)
        context.release()
    }
}
