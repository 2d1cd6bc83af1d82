import Foundation
import MailwakeCore
import MailwakeHTTPServer
import MailwakeHTTPTypes
import TestSupport
import Testing

@Suite("HTTP server: limits, timeouts and hostile clients", .awaitedCleanup)
struct LimitsTests {
    static func router(latch: Latch? = nil, handled: Counter? = nil, entered: Latch? = nil) -> Router {
        var r = Router()
        r.post("/upload") { request, _ in .text("got \(request.body.count)") }
        r.get("/ok") { _, _ in .text("ok") }
        r.get("/wait") { _, _ in
            entered?.signal()
            await latch?.wait()
            handled?.increment()
            return .text("waited")
        }
        r.get("/sleep") { _, _ in
            entered?.signal()
            try await Task.sleep(nanoseconds: 60_000_000_000)
            return .text("never")
        }
        return r
    }

    @Test func aDeclaredOversizeBodyIsRefusedWithoutReadingIt() async throws {
        let f = try ServerFixture.start(Self.router()) { $0.maxBodyBytes = 1000 }
        let c = try RawConnection(port: f.port)
        c.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000000\r\n\r\n")
        let response = await c.readResponse()
        #expect(response?.status == 413)
        #expect(response?.text.contains("urn:mailwake:problem:payload-too-large") == true)
        #expect(try await f.get("/ok").status == 200, "the server stays healthy")
    }

    @Test func aChunkedBodyGrowingPastTheLimitIsRefused() async throws {
        let f = try ServerFixture.start(Self.router()) { $0.maxBodyBytes = 1000 }
        let c = try RawConnection(port: f.port)
        c.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<4 { c.send("200\r\n" + String(repeating: "x", count: 512) + "\r\n") }
        c.send("0\r\n\r\n")
        let response = await c.readResponse()
        #expect(response?.status == 413)
    }

    @Test func aChunkedBodyStreamingFarPastTheLimitIsCutOff() async throws {
        let f = try ServerFixture.start(Self.router()) { $0.maxBodyBytes = 1000 }
        let c = try RawConnection(port: f.port)
        c.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
        var closed = false
        for _ in 0..<200 where !closed {
            closed = !c.send("400\r\n" + String(repeating: "x", count: 1024) + "\r\n")
        }
        #expect(await c.waitForClose())
        #expect(try await f.get("/ok").status == 200)
    }

    @Test func aBodyAtTheLimitIsAccepted() async throws {
        let f = try ServerFixture.start(Self.router()) { $0.maxBodyBytes = 1000 }
        let response = try await f.post("/upload", body: String(repeating: "y", count: 1000), contentType: "text/plain")
        #expect(response.status == 200)
        #expect(response.text == "got 1000")
    }

    @Test func aDeclaredBodyLargerThanWhatIsAllocatedUpFrontArrivesWhole() async throws {
        @Sendable func checksum(_ bytes: [UInt8]) -> Int {
            bytes.enumerated().reduce(0) { ($0 &* 31 &+ Int($1.element) &+ $1.offset) & 0xFFFF_FFFF }
        }
        var r = Router()
        r.post("/sum") { request, _ in .text("\(request.body.count) \(checksum(request.body))") }
        let f = try ServerFixture.start(r) { $0.maxBodyBytes = 200_000 }
        // Past the bridge's 16 KiB first allocation: the rest grows as it arrives, byte for byte.
        let body = String((0..<100_000).map { Character(UnicodeScalar(UInt8(33 + $0 % 90))) })
        let expected = checksum(Array(body.utf8))
        let response = try await f.post("/sum", body: body, contentType: "text/plain")
        #expect(response.status == 200)
        #expect(response.text == "100000 \(expected)")
    }

    @Test func oversizeHeadersAreRefused() async throws {
        let f = try ServerFixture.start(Self.router()) { $0.maxHeaderBytes = 4096 }
        let response = try await f.get("/ok", headers: "X-Big: \(String(repeating: "h", count: 8000))\r\n")
        #expect([413, 414, 431].contains(response.status))
        #expect(try await f.get("/ok").status == 200)
    }

    @Test(arguments: ["GARBAGE\r\n\r\n", "GET /ok HTTP/1.1\r\n\r\n", "GET /ok HTTP/9.9\r\nHost: x\r\n\r\n",
                      "GET /o k HTTP/1.1\r\nHost: x\r\n\r\n"])
    func malformedRequestsGetAClientErrorAndTheServerStaysUp(raw: String) async throws {
        let f = try ServerFixture.start(Self.router())
        let c = try RawConnection(port: f.port)
        c.send(raw)
        let bytes = await c.readToEnd()
        // MHD answers some malformed requests with a 4xx and drops others at once; never a success.
        let status = Int(String(decoding: bytes, as: UTF8.self).split(separator: " ").dropFirst().first ?? "") ?? 0
        #expect(bytes.isEmpty || (400..<506).contains(status), "got \(String(decoding: bytes.prefix(40), as: UTF8.self))")
        #expect(try await f.get("/ok").status == 200)
    }

    @Test func aSlowClientIsCutOffByTheIdleTimeout() async throws {
        let f = try ServerFixture.start(Self.router()) { $0.idleTimeoutSeconds = 1 }
        let c = try RawConnection(port: f.port, receiveTimeoutSeconds: 8)
        c.send("GET /ok HTTP/1.1\r\nHost: loc")
        // Never finishes the headers: the server must close the connection on its own.
        #expect(await c.waitForClose())
    }

    @Test func aHandlerPastTheDeadlineIsAnswered503AndCancelled() async throws {
        let f = try ServerFixture.start(Self.router()) { $0.requestDeadlineSeconds = 0.3 }
        let response = try await f.get("/sleep")
        #expect(response.status == 503)
        #expect(response.text.contains("urn:mailwake:problem:deadline-exceeded"))
        #expect(response.header("Retry-After") == "1")
    }

    @Test func aClientHangingUpWhileItsHandlerAwaitsLeavesTheServerHealthy() async throws {
        let latch = Latch()
        let registry = MetricsRegistry()
        let handled = registry.counter("handled_total", help: "handled")
        let entered = Latch()
        let f = try ServerFixture.start(Self.router(latch: latch, handled: handled, entered: entered))
        let c = try RawConnection(port: f.port)
        c.send("GET /wait HTTP/1.1\r\nHost: localhost\r\n\r\n")
        await entered.wait()
        c.close()
        latch.signal()
        let deadline = ContinuousClock.now + .seconds(60)
        while handled.current == 0, ContinuousClock.now < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(handled.current == 1)
        #expect(try await f.get("/ok").status == 200)
        while !f.metrics.render().contains("mailwake_test_http_requests_in_flight{listener=\"http\"} 0"), ContinuousClock.now < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(f.metrics.render().contains("mailwake_test_http_requests_in_flight{listener=\"http\"} 0"))
        await f.stop()
        #expect(f.logs.all.contains { $0.message == "stopped" }, "the daemon stopped instead of waiting for the hung-up connection")
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        let f = try ServerFixture.start(Self.router())
        let c = try RawConnection(port: f.port)
        for _ in 0..<5 {
            c.send("GET /ok HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let r = await c.readResponse()
            #expect(r?.status == 200)
        }
    }

    @Test func manyConcurrentClientsAreAllAnswered() async throws {
        let f = try ServerFixture.start(Self.router())
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<64 {
                group.addTask { try await f.post("/upload", body: String(repeating: "z", count: i), contentType: "text/plain").status }
            }
            for try await status in group { #expect(status == 200) }
        }
    }

    @Test func perIPConnectionLimitRefusesExtraConnections() async throws {
        let f = try ServerFixture.start(Self.router()) { $0.perIPConnectionLimit = 2 }
        let a = try RawConnection(port: f.port), b = try RawConnection(port: f.port)
        a.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
        b.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await a.readResponse()?.status == 200)
        #expect(await b.readResponse()?.status == 200)
        let c = try RawConnection(port: f.port, receiveTimeoutSeconds: 3)
        c.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await c.readResponse() == nil, "a third connection from the same address is closed unanswered")
    }
}
