import Foundation
import MailwakeHTTPServer
import TestSupport
import Testing

/// Where one request ends and the next begins (RFC 9112 §6), with the framings an attacker uses to smuggle a
/// second request past a proxy refused rather than guessed.
///
/// On the epoll engine only: libmicrohttpd 0.9.75, even with strict parsing, answers 200 to both framings at
/// once, two lengths, two Hosts, a space before the colon and a folded line (docs/dependencies.md).
@Suite("HTTP server: request framing, smuggling and interim answers", .awaitedCleanup)
struct RequestFramingTests {
    /// The statuses of every response in `bytes`, in order.
    static func statuses(_ bytes: [UInt8]) -> [Int] {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }

    /// A server on the epoll engine, with the idle timeout given (the configuration's default otherwise).
    static func start(_ router: Router = LimitsTests.router(), idleTimeoutSeconds: Int? = nil) throws -> ServerFixture {
        try ServerFixture.start(router) { c in
            c.engine = .epoll
            if let idleTimeoutSeconds { c.idleTimeoutSeconds = idleTimeoutSeconds }
        }
    }

    /// Sends `raw` on a fresh connection and reads until the server closes it.
    static func exchange(_ f: ServerFixture, _ raw: String) async throws -> [UInt8] {
        let c = try RawConnection(port: f.port)
        c.send(raw)
        return await c.readToEnd()
    }

    /// What a refused request may get: a 4xx or 5xx before the close, or the close alone; never a handler's answer.
    static func isRefusal(_ bytes: [UInt8]) -> Bool {
        let seen = statuses(bytes)
        return seen.allSatisfy { (400..<506).contains($0) } && seen.count <= 1
    }

    @Test(arguments: [
        // Both framings: a proxy reading one and the server the other would disagree where the next request starts.
        "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
        // Two lengths that differ.
        "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde",
        // A length that is not digits.
        "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nabcde",
        "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0x5\r\n\r\nabcde",
        // Whitespace between the field name and the colon.
        "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\nabcde",
        // A folded header line (obs-fold).
        "GET /ok HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  folded\r\n\r\n",
        // Two Host fields.
        "GET /ok HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
        // Lines ended by LF alone.
        "GET /ok HTTP/1.1\nHost: x\n\n",
        "GET /ok HTTP/1.1\r\nHost: x\nX-A: 1\r\n\r\n",
        // A chunk size that is not hexadecimal.
        "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    ])
    func ambiguousFramingIsRefusedNotGuessed(raw: String) async throws {
        let f = try Self.start()
        let bytes = try await Self.exchange(f, raw)
        #expect(Self.isRefusal(bytes), "got \(String(decoding: bytes.prefix(60), as: UTF8.self))")
        #expect(try await f.get("/ok").status == 200)
    }

    @Test func pipelinedRequestsAreAnsweredInOrderOnOneConnection() async throws {
        let f = try Self.start()
        let raw = "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na" +
            "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nbb" +
            "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let text = String(decoding: try await Self.exchange(f, raw), as: UTF8.self)
        #expect(Self.statuses(Array(text.utf8)) == [200, 200, 200])
        let one = try #require(text.range(of: "got 1")), two = try #require(text.range(of: "got 2"))
        let ok = try #require(text.range(of: "\r\n\r\nok"))
        #expect(one.lowerBound < two.lowerBound && two.lowerBound < ok.lowerBound)
    }

    @Test func aChunkedBodyWithExtensionsAndTrailersIsDecoded() async throws {
        let f = try Self.start()
        let raw = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
            "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
        let text = String(decoding: try await Self.exchange(f, raw), as: UTF8.self)
        #expect(Self.statuses(Array(text.utf8)) == [200])
        #expect(text.hasSuffix("got 11"))
    }

    @Test func expectContinueGetsAnInterimAnswerBeforeTheBodyIsSent() async throws {
        let f = try Self.start()
        let c = try RawConnection(port: f.port)
        c.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
        let interim = await c.readResponse()
        #expect(interim?.status == 100, "the server waits for the body without saying so")
        c.send("abcde")
        let text = String(decoding: await c.readToEnd(), as: UTF8.self)
        #expect(Self.statuses(Array(text.utf8)) == [200])
        #expect(text.hasSuffix("got 5"))
    }

    @Test func headersArrivingOneByteAtATimeMakeOneRequest() async throws {
        // No bound on how long the trickle takes: on a loaded machine it is not this test's subject.
        let f = try Self.start(idleTimeoutSeconds: 3600)
        let c = try RawConnection(port: f.port, receiveTimeoutSeconds: 300)
        // A thread of its own sends, so a busy cooperative pool cannot stretch the pauses between bytes.
        Thread.detachNewThread {
            for byte in "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8 {
                guard c.send([byte]) else { return }
                usleep(1000)
            }
        }
        let text = String(decoding: await c.readToEnd(), as: UTF8.self)
        #expect(Self.statuses(Array(text.utf8)) == [200])
        #expect(text.hasSuffix("ok"))
    }

    @Test func anHTTP10RequestIsAnsweredAndTheConnectionClosed() async throws {
        let f = try Self.start()
        // readToEnd returns only when the server closes: HTTP/1.0 without keep-alive is one request.
        let text = String(decoding: try await Self.exchange(f, "GET /ok HTTP/1.0\r\n\r\n"), as: UTF8.self)
        #expect(Self.statuses(Array(text.utf8)) == [200])
        #expect(text.hasSuffix("ok"))
    }

    @Test func aRequestTrickledFasterThanTheIdleTimeoutIsStillCutOff() async throws {
        let f = try Self.start(idleTimeoutSeconds: 1)
        let c = try RawConnection(port: f.port, receiveTimeoutSeconds: 60)
        // One byte every 200 ms keeps the idle timer fresh; the request as a whole must still arrive within the timeout.
        let sender = Task {
            for byte in ("GET /ok HTTP/1.1\r\nX-Slow: " + String(repeating: "s", count: 600)).utf8 {
                guard !Task.isCancelled, c.send([byte]) else { return }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(await c.waitForClose(), "a request that never completes holds its connection")
        sender.cancel()
    }

    @Test func aRequestFollowedByItsClientsFINIsAnsweredAndClosed() async throws {
        let f = try Self.start(idleTimeoutSeconds: 0)
        let c = try RawConnection(port: f.port, receiveTimeoutSeconds: 60)
        c.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
        c.finishSending()
        #expect(await c.readResponse()?.status == 200)
        #expect(await c.waitForClose(), "the FIN that came with the request was lost")
    }

    @Test func aHEADAnswerCarriesNoBodyAndTheNextRequestIsReadCleanly() async throws {
        var r = Router()
        r.get("/ok") { _, _ in .text("ok") }
        r.add(.head, "/ok") { _, _ in .text("ok") }
        let f = try Self.start(r)
        let raw = "HEAD /ok HTTP/1.1\r\nHost: x\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let text = String(decoding: try await Self.exchange(f, raw), as: UTF8.self)
        #expect(Self.statuses(Array(text.utf8)) == [200, 200])
        let first = try #require(text.range(of: "\r\n\r\n"))
        #expect(text[first.upperBound...].hasPrefix("HTTP/1.1 200"), "the HEAD answer's body leaked into the stream")
        #expect(text.hasSuffix("ok"))
    }
}
