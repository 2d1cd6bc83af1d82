import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Synchronization
import Testing

/// `HTTP2Client` (nghttp2 and OpenSSL) against the Python test server: what
/// goes on the wire, connections and streams, and every way a request can fail.
@Suite struct HTTP2ClientTests {
    /// Runs `body` with the Python test server and an `HTTP2Client` for it trusting the test CA; stops both afterwards.
    static func withServer(alpn: [String] = ["h2", "http/1.1"], logger: Logger = .disabled,
                           _ adjust: (inout HTTPClient.Configuration) -> Void = { _ in },
                           _ body: (PythonHTTPTestServer, HTTP2Client) async throws -> Void) async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates, alpn: alpn)
            defer { server.stop() }
            let client = try HTTP2Client(origin: server.baseURL, configuration: .trusting(certificates, adjust), logger: logger)
            defer { client.shutdown() }
            try await body(server, client)
        }
    }

    @Test func aPostArrivesAsSentOverHTTP2() async throws {
        try await Self.withServer { server, client async throws in
            let body = Array(repeating: UInt8(ascii: "x"), count: 70_000) // more than one DATA frame and the default window
            let response = try await client.execute(.init(method: .post, url: server.baseURL + "/echo?q=1",
                                                          headers: ["Apns-Topic": "net.mailwake.app", "apns-priority": "10"], body: body))
            #expect(response.status == .ok)
            #expect(response.version == .http2)
            let echo = try Echo(response)
            #expect(echo.method == "POST")
            #expect(echo.path == "/echo?q=1")
            #expect(echo.version == "HTTP/2")
            #expect(echo.bodyBytes == body)
            #expect(echo.value("apns-topic") == "net.mailwake.app", "names go out in lower case")
            #expect(echo.value("apns-priority") == "10")
            #expect(echo.value("user-agent")?.hasPrefix("mailwake/") == true)
            #expect(response.headers["content-type"] == "application/json")
        }
    }

    @Test func aGetWithoutBodyAndAnErrorStatusAreResponses() async throws {
        try await Self.withServer { server, client async throws in
            let echo = try Echo(try await client.execute(.init(url: server.baseURL + "/echo")))
            #expect(echo.method == "GET")
            #expect(echo.bodyBytes.isEmpty)
            let gone = try await client.execute(.init(url: server.baseURL + "/status/410?header=apns-id:abc&body=Unregistered"))
            #expect(gone.status.code == 410)
            #expect(gone.headers["apns-id"] == "abc")
            #expect(gone.text == "Unregistered")
        }
    }

    /// `execute(_:logger:then:)`'s answer, awaited: the callback's one result, and how many times it was called.
    static func answer(_ client: HTTP2Client,
                       _ request: HTTPClient.Request) async -> (Result<HTTPClient.Response, any Error>, calls: Int) {
        let calls = Mutex(0)
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<HTTPClient.Response, any Error>, Never>) in
            client.execute(request, logger: nil) { result in
                if calls.withLock({ n -> Int in
                    n += 1
                    return n
                }) == 1 { waiter.resume(returning: result) }
            }
        }
        // A second call would come from the client's thread right after the first; a later request flushes it out.
        _ = try? await client.execute(.init(url: request.url))
        return (result, calls.withLock { $0 })
    }

    /// The client error code of a failed answer.
    static func code(_ result: Result<HTTPClient.Response, any Error>) -> HTTPClientError.Code? {
        guard case .failure(let error) = result else { return nil }
        return (error as? HTTPClientError)?.code
    }

    @Test func aCallbackGetsTheResponseOnceWithoutATaskWaiting() async throws {
        try await Self.withServer { server, client async throws in
            let (answered, calls) = await Self.answer(client, .init(method: .post, url: server.baseURL + "/echo",
                                                                    headers: ["apns-id": "abc"], body: Array("payload".utf8)))
            let echo = try Echo(try answered.get())
            #expect(echo.bodyBytes == Array("payload".utf8))
            #expect(echo.value("apns-id") == "abc")
            #expect(calls == 1)
            let (gone, _) = await Self.answer(client, .init(url: server.baseURL + "/status/410?body=Unregistered"))
            #expect(try gone.get().status.code == 410)
        }
    }

    @Test func aCallbackGetsTheSameErrorsAsAnAwaitedRequest() async throws {
        try await Self.withServer { server, client async throws in
            let (refused, _) = await Self.answer(client, .init(url: "https://127.0.0.2:9/"))
            #expect(Self.code(refused) == .invalidRequest)
            let (tooSlow, calls) = await Self.answer(client, .init(url: server.baseURL + "/delay?ms=2000", timeout: .milliseconds(200)))
            #expect(Self.code(tooSlow) == .timeout)
            #expect(calls == 1)
            client.shutdown()
            let (stopped, _) = await Self.answer(client, .init(url: server.baseURL + "/echo"))
            #expect(Self.code(stopped) == .shutdown)
        }
    }

    @Test func concurrentRequestsShareOneConnection() async throws {
        try await Self.withServer { server, client async throws in
            let base = server.baseURL
            let echoes = try await withThrowingTaskGroup(of: Echo.self) { group in
                for i in 0..<30 { group.addTask { try Echo(try await client.execute(.init(url: base + "/delay?ms=\(i % 5 * 20)"))) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(echoes.map(\.connection)).count == 1)
            #expect(Set(echoes.map(\.stream)).count == 30)
            #expect(try await server.connectionCount(including: echoes.map(\.connection)) == 1)
            #expect(client.connections == (opened: 1, open: 1))
        }
    }

    @Test func fullConnectionsOpenAnotherUpToTheLimitAndTheRestWait() async throws {
        try await Self.withServer({
            $0.maxConnectionsPerHost = 2
            $0.maxConcurrentStreams = 2
        }) { server, client async throws in
            let base = server.baseURL
            let echoes = try await withThrowingTaskGroup(of: Echo.self) { group in
                for _ in 0..<8 { group.addTask { try Echo(try await client.execute(.init(url: base + "/delay?ms=300"))) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(echoes.count == 8)
            #expect(Set(echoes.map(\.connection)).count == 2)
            #expect(try await server.connectionCount(including: echoes.map(\.connection)) == 2)
        }
    }

    @Test func aServerThatIsNotTrustedFailsWithTLS() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTP2Client(origin: server.baseURL) // the system store, which lacks the test CA
            defer { client.shutdown() }
            let error = await thrownError { try await client.execute(.init(url: server.baseURL + "/echo")) }
                as? HTTPClientError
            #expect(error?.code == .tls)
            #expect(error?.message.contains("certificate") == true)
        }
    }

    @Test func aServerWithoutHTTP2FailsWithTLSNamingALPN() async throws {
        try await Self.withServer(alpn: ["http/1.1"]) { server, client async throws in
            let error = await thrownError { try await client.execute(.init(url: server.baseURL + "/echo")) }
                as? HTTPClientError
            #expect(error?.code == .tls)
            #expect(error?.message.contains("ALPN") == true)
        }
    }

    @Test func aRefusedConnectionFailsWithConnect() async throws {
        let port = try PortAllocator.freePort()
        let client = try HTTP2Client(origin: "https://127.0.0.1:\(port)")
        defer { client.shutdown() }
        let error = await thrownError { try await client.execute(.init(url: "https://127.0.0.1:\(port)/")) }
            as? HTTPClientError
        #expect(error?.code == .connect)
        #expect(error?.isRetryable == true)
    }

    @Test func aResponseOverItsLimitFailsAndTheConnectionGoesOn() async throws {
        try await Self.withServer({ $0.maxResponseBytes = 1000 }) { server, client async throws in
            #expect(await clientErrorCode { try await client.execute(.init(url: server.baseURL + "/bytes?n=5000")) }
                == .responseTooLarge)
            #expect(await clientErrorCode { try await client.execute(.init(url: server.baseURL + "/echo", maxResponseBytes: 10)) }
                == .responseTooLarge)
            let fits = try await client.execute(.init(url: server.baseURL + "/bytes?n=1000"))
            #expect(fits.body.count == 1000)
            #expect(try await server.connectionCount(including: [1]) == 1)
        }
    }

    /// Several responses larger than the stream and connection windows share one connection: each turn reads at most
    /// 16 TLS records, the windows reopen as the bodies are taken, and every body arrives whole, to its own stream.
    @Test func responsesOfManyRecordsArriveWholeTogether() async throws {
        let sizes = (0..<4).map { (3 << 20) + $0 * 4_099 }
        try await Self.withServer({ $0.maxResponseBytes = 4 << 20 }) { server, client async throws in
            let bodies = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for size in sizes {
                    group.addTask { (size, try await client.execute(.init(url: server.baseURL + "/bytes?n=\(size)")).body.count) }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(bodies == Dictionary(uniqueKeysWithValues: sizes.map { ($0, $0) }))
            #expect(try await server.connectionCount(including: [1]) == 1)
        }
    }

    @Test func aTimedOutStreamIsResetAndItsConnectionStays() async throws {
        try await Self.withServer { server, client async throws in
            let first = try Echo(try await client.execute(.init(url: server.baseURL + "/echo")))
            let clock = ContinuousClock()
            let start = clock.now
            #expect(await clientErrorCode { try await client.execute(.init(url: server.baseURL + "/never", timeout: .milliseconds(300))) }
                == .timeout)
            #expect(clock.now - start >= .milliseconds(250), "the timeout fired early")
            let after = try Echo(try await client.execute(.init(url: server.baseURL + "/echo")))
            #expect(after.connection == first.connection)
        }
    }

    @Test func cancellingAnInFlightRequestResetsOnlyItsStream() async throws {
        try await Self.withServer { server, client async throws in
            let base = server.baseURL
            let first = try Echo(try await client.execute(.init(url: base + "/echo")))
            let slow = Task { try await client.execute(.init(url: base + "/delay?ms=60000")) }
            let sibling = Task { try Echo(try await client.execute(.init(url: base + "/delay?ms=600"))) }
            try await server.waitForLog("/delay?ms=60000")
            slow.cancel()
            #expect(await thrownError { try await slow.value } is CancellationError)
            #expect(try await sibling.value.connection == first.connection)
            try await server.waitForLog("reset \(first.connection) ")

            let early = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.execute(.init(url: base + "/echo?early"))
            }
            #expect(await thrownError { try await early.value } is CancellationError)
            #expect(!server.logText().contains("/echo?early"))

            // Mid-upload (the body waits on the server's flow-control window): the stream goes, the connection stays.
            let upload = Task {
                try await client.execute(.init(method: .post, url: base + "/never", body: Array(repeating: 7, count: 4 << 20)))
            }
            try await Task.sleep(for: .milliseconds(100))
            upload.cancel()
            #expect(await thrownError { try await upload.value } is CancellationError)
            #expect(try Echo(try await client.execute(.init(url: base + "/echo"))).connection == first.connection)
        }
    }

    @Test func aConnectionClosedBeforeTheResponseFailsAsRetryable() async throws {
        try await Self.withServer { server, client async throws in
            let error = await thrownError { try await client.execute(.init(method: .post, url: server.baseURL + "/close", body: [1])) }
                as? HTTPClientError
            #expect(error?.code == .connectionClosed)
            #expect(error?.isRetryable == true)
            #expect(try await client.execute(.init(url: server.baseURL + "/echo")).status == .ok)
        }
    }

    /// REFUSED_STREAM promises the server did not process the request: it is
    /// sent again, twice, before the caller hears of it.
    @Test func aRefusedStreamIsSentAgainTwiceThenFailsAsRetryable() async throws {
        try await Self.withServer { server, client async throws in
            let error = await thrownError { try await client.execute(.init(url: server.baseURL + "/refuse")) }
                as? HTTPClientError
            #expect(error?.code == .streamRefused)
            #expect(error?.isRetryable == true)
            #expect(server.logText().components(separatedBy: "GET /refuse").count - 1 == 3)
        }
    }

    /// A GOAWAY excluding a stream: the earlier stream is answered; the
    /// excluded request goes out again on a new connection.
    @Test func aStreamAboveAGoawaysLastStreamGoesOutOnANewConnection() async throws {
        try await Self.withServer { server, client async throws in
            let base = server.baseURL
            let first = try Echo(try await client.execute(.init(url: base + "/echo")))
            let earlier = Task { try Echo(try await client.execute(.init(url: base + "/delay?ms=400"))) }
            try await server.waitForLog("/delay?ms=400")
            // /goaway excludes itself on every connection: three tries, then refused.
            #expect(await clientErrorCode { try await client.execute(.init(method: .post, url: base + "/goaway", body: [1])) }
                == .streamRefused)
            #expect(try await earlier.value.connection == first.connection, "a stream below the last id is still answered")
            // A request the GOAWAY excluded (sent after it) is answered on a new connection.
            let after = try Echo(try await client.execute(.init(url: base + "/echo")))
            #expect(after.connection != first.connection)
        }
    }

    /// nghttp2 cannot encode a header block this large: the request fails at
    /// once (not sent again and again until its timeout) and the connection goes on.
    @Test func aRequestThatCannotBeEncodedFailsAtOnceAndTheConnectionGoesOn() async throws {
        try await Self.withServer { server, client async throws in
            let first = try Echo(try await client.execute(.init(url: server.baseURL + "/echo")))
            let huge = String(repeating: "v", count: 100_000)
            let error = await thrownError { try await client.execute(.init(url: server.baseURL + "/echo", headers: ["x-big": huge],
                                                                           timeout: .seconds(60))) } as? HTTPClientError
            #expect(error?.code == .other)
            #expect(error?.message.contains("could not be sent") == true)
            #expect(try Echo(try await client.execute(.init(url: server.baseURL + "/echo"))).connection == first.connection)
        }
    }

    @Test func requestsOffTheOriginOrUnsafeAreRefusedBeforeSending() async throws {
        let client = try HTTP2Client(origin: "https://127.0.0.1:9")
        defer { client.shutdown() }
        let refused: [HTTPClient.Request] = [
            .init(url: "https://127.0.0.2:9/"),
            .init(url: "https://127.0.0.1:99/"),
            .init(url: "https://127.0.0.1:9@evil/"),
            .init(url: "https://127.0.0.1:9/", headers: ["x": "a\r\nb: c"]),
            .init(url: "https://127.0.0.1:9/", headers: ["bad name": "v"]),
            .init(url: "https://127.0.0.1:9/", headers: ["content-length": "5"]),
            .init(url: "https://127.0.0.1:9/", followRedirects: true),
            .init(url: "https://127.0.0.1:9/", timeout: .zero),
        ]
        for request in refused {
            #expect(await clientErrorCode { try await client.execute(request) } == .invalidRequest, "\(request.url)")
        }
    }

    @Test func settingsItCannotHonourAreRefusedAtInit() {
        func code(_ origin: String = "https://api.push.apple.com", _ adjust: (inout HTTPClient.Configuration) -> Void = { _ in })
            -> HTTPClientError.Code? {
            var c = HTTPClient.Configuration()
            adjust(&c)
            do {
                _ = try HTTP2Client(origin: origin, configuration: c)
                return nil
            } catch {
                return (error as? HTTPClientError)?.code
            }
        }
        #expect(code { $0.httpVersion = .http1_1 } == .invalidConfiguration)
        #expect(code { $0.pinnedPublicKeys = [HTTPClient.Configuration.pin(spkiSHA256: Array(repeating: 1, count: 32))] }
            == .invalidConfiguration)
        #expect(code { $0.publicAddressesOnly = true } == .invalidConfiguration)
        #expect(code { $0.followRedirects = true } == .invalidConfiguration)
        for origin in ["http://api.push.apple.com", "https://", "https://host/path", "https://host:0", "https://host:70000",
                       "https://user@host", "https://[::1"] {
            #expect(code(origin) == .invalidConfiguration, "\(origin)")
        }
        #expect(code("https://[::1]:8443") == nil)
        #expect(code("https://API.push.apple.com/") == nil)
    }

    /// Errors and log lines name the origin at most, never the path, headers or body.
    @Test func noSecretsInErrorsOrLogs() async throws {
        let sink = MemoryLogSink()
        try await Self.withServer(logger: Logger(service: "test", level: .trace, sink: sink)) { server, client async throws in
            let token = "DEVICETOKEN0123456789abcdef"
            let headers: HTTPHeaders = ["authorization": "bearer eyJSECRETJWT", "apns-topic": "app.mailwake.ios"]
            let body = Array(#"{"ct":"CIPHERTEXT-SECRET"}"#.utf8)
            let base = server.baseURL
            _ = try await client.execute(.init(method: .post, url: base + "/echo/\(token)", headers: headers, body: body))
            let failures = [
                await thrownError { try await client.execute(.init(method: .post, url: base + "/echo/\(token)", headers: headers,
                                                                   body: body, maxResponseBytes: 10)) },
                await thrownError { try await client.execute(.init(method: .post, url: base + "/never/\(token)", headers: headers,
                                                                   body: body, timeout: .milliseconds(200))) },
                await thrownError { try await client.execute(.init(method: .post, url: base + "/close/\(token)", headers: headers,
                                                                   body: body)) },
            ]
            let lines = sink.lines
            #expect(lines.count >= 4)
            #expect(lines.contains { $0.contains(#""origin":"https://127.0.0.1:"#) })
            for text in lines + failures.map({ String(describing: $0) }) {
                for secret in [token, "SECRETJWT", "CIPHERTEXT", "/echo/", "/never/"] {
                    #expect(!text.contains(secret), "\(text) leaks \(secret)")
                }
            }
        }
    }
}
