import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// Timeouts, refusals, cancellation, shutdown and misbehaving servers.
@Suite struct FailureTests {
    @Test func totalTimeoutAgainstAServerThatNeverAnswers() async throws {
        let silent = try SilentTCPListener()
        var configuration = HTTPClient.Configuration()
        configuration.totalTimeout = .milliseconds(300)
        let client = try HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        let clock = ContinuousClock()

        let start = clock.now
        let error = await thrownError { try await client.execute(.init(url: "https://127.0.0.1:\(silent.port)/")) } as? HTTPClientError
        #expect(error?.code == .timeout)
        let elapsed = seconds(clock.now - start)
        #expect(elapsed >= 0.25, "the timeout fired early: \(elapsed) s")

        // A per-request timeout overrides the configuration, over cleartext too.
        #expect(await clientErrorCode { try await client.execute(.init(url: "http://127.0.0.1:\(silent.port)/",
                                                                       timeout: .milliseconds(150))) } == .timeout)
    }

    @Test func totalTimeoutWhenTheServerStallsAfterTheHandshake() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            let first = try Echo(try await client.execute(.init(url: server.baseURL + "/echo")))
            #expect(await clientErrorCode { try await client.execute(.init(url: server.baseURL + "/never",
                                                                           timeout: .milliseconds(300))) } == .timeout)
            // The HTTP/2 connection survives a timed-out stream.
            let after = try Echo(try await client.execute(.init(url: server.baseURL + "/echo")))
            #expect(after.connection == first.connection)
        }
    }

    @Test func connectionRefused() async throws {
        let port = try PortAllocator.freePort()
        let client = try HTTPClient()
        defer { client.shutdown() }
        let error = await thrownError { try await client.execute(.init(url: "https://127.0.0.1:\(port)/")) } as? HTTPClientError
        #expect(error?.code == .connect)
        #expect(error?.isRetryable == true)
        #expect(error?.curlCode == 7)
    }

    @Test func cancellingAnInFlightRequestReturnsPromptlyAndTheClientStaysUsable() async throws {
        try await withCertificates { certificates in
            let silent = try SilentTCPListener()
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            let clock = ContinuousClock()

            let hanging = Task { try await client.execute(.init(url: "https://127.0.0.1:\(silent.port)/")) }
            try await Task.sleep(for: .milliseconds(200))
            hanging.cancel()
            // Not the 30 s total timeout: cancellation itself ended it.
            let error = await thrownError { try await hanging.value }
            #expect(error is CancellationError)

            // A cancelled HTTP/2 stream leaves its connection and siblings alone.
            let base = server.baseURL
            let first = try Echo(try await client.execute(.init(url: base + "/echo")))
            let slow = Task { try await client.execute(.init(url: base + "/delay?ms=60000")) }
            let sibling = Task { try Echo(try await client.execute(.init(url: base + "/delay?ms=600"))) }
            try await Task.sleep(for: .milliseconds(200))
            slow.cancel()
            // CancellationError, not the 60 s answer: the stream was reset.
            #expect(await thrownError { try await slow.value } is CancellationError)
            let siblingEcho = try await sibling.value
            let after = try Echo(try await client.execute(.init(url: base + "/echo")))
            #expect(siblingEcho.connection == first.connection)
            #expect(after.connection == first.connection)
            #expect(try await server.connectionCount(including: [first.connection]) == 1)
            // The server saw the stream reset (RST_STREAM) shortly after.
            let deadline = clock.now + .seconds(30)
            while !server.logText().contains("reset \(first.connection) "),
                  clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(server.logText().contains("reset \(first.connection) "))

            // Cancelled before it starts: nothing is sent.
            let early = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.execute(.init(url: base + "/echo?early"))
            }
            #expect(await thrownError { try await early.value } is CancellationError)
            #expect(!server.logText().contains("/echo?early"))
        }
    }

    @Test func manyCancellationsRaceCompletionsSafely() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            let base = server.baseURL
            let tasks = (0..<40).map { i in Task { try await client.execute(.init(url: base + "/delay?ms=\(i * 5)")) } }
            for (i, task) in tasks.enumerated() where i % 2 == 0 {
                try await Task.sleep(for: .milliseconds(3))
                task.cancel()
            }
            var completed = 0, cancelled = 0
            for task in tasks {
                switch await task.result {
                case .success(let response): if response.status == .ok { completed += 1 }
                case .failure(let error): if error is CancellationError { cancelled += 1 }
                }
            }
            #expect(completed + cancelled == 40)
            #expect(completed >= 20)
            #expect(try await client.execute(.init(url: base + "/echo")).status == .ok)
        }
    }

    /// Both clients: `HTTPClient` (libcurl) and `HTTP2Client` (nghttp2).
    @Test(arguments: ["libcurl", "nghttp2"])
    func shutdownFailsPendingRequests(client kind: String) async throws {
        let silent = try SilentTCPListener()
        let url = "https://127.0.0.1:\(silent.port)/"
        let client: any HTTPRequestExecuting = kind == "libcurl" ? try HTTPClient() : try HTTP2Client(origin: url)
        let pending = (0..<5).map { _ in Task { try await client.execute(.init(url: url), logger: nil) } }
        try await Task.sleep(for: .milliseconds(200))
        client.shutdown()
        // `.shutdown`, not the 30 s total timeout: shutdown itself ended them.
        for task in pending {
            #expect(await clientErrorCode { try await task.value } == .shutdown)
        }
        #expect(await clientErrorCode { try await client.execute(.init(url: url), logger: nil) } == .shutdown)
        client.shutdown() // idempotent
    }

    @Test(arguments: [HTTPClient.VersionPreference.http2, .http1_1])
    func connectionClosedBeforeAnyResponseIsRetryable(version: HTTPClient.VersionPreference) async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates) { $0.httpVersion = version })
            defer { client.shutdown() }
            let error = await thrownError { try await client.execute(.init(method: .post, url: server.baseURL + "/close",
                                                                           body: [1, 2, 3])) } as? HTTPClientError
            #expect(error?.code == .connectionClosed)
            #expect(error?.isRetryable == true)
            #expect(try await client.execute(.init(url: server.baseURL + "/echo")).status == .ok)
        }
    }

    /// A GOAWAY that excludes a stream: earlier streams complete; the excluded
    /// one either is retried by libcurl (on a new connection, where this
    /// server refuses it again) or fails as retryable. Never a response.
    @Test func goawayRefusedStreamsSurfaceAsRetryable() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            let base = server.baseURL

            let earlier = Task { try await client.execute(.init(url: base + "/delay?ms=400")) }
            try await Task.sleep(for: .milliseconds(100))
            let excluded = await thrownError { try await client.execute(.init(method: .post, url: base + "/goaway",
                                                                              body: [1])) } as? HTTPClientError
            #expect(excluded?.code == .streamRefused)
            #expect(excluded?.isRetryable == true)
            #expect(try await earlier.value.status == .ok, "a stream below the GOAWAY's last id is still answered")

            // GOAWAY(last_stream_id = 0) and an immediate close.
            let immediate = await thrownError { try await client.execute(.init(url: base + """
                                                                                           /goaway?last=0&clo\
                                                                                           se_ms=0
                                                                                           """)) } as? HTTPClientError
            #expect(immediate?.isRetryable == true)
            #expect(try await client.execute(.init(url: base + "/echo")).status == .ok)
        }
    }

    @Test func resetStreamsAreRetryable() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            // libcurl retries REFUSED_STREAM itself (5 times) and then gives up.
            let error = await thrownError { try await client.execute(.init(url: server.baseURL + "/refuse")) } as? HTTPClientError
            #expect(error?.isRetryable == true)
            #expect(server.logText().components(separatedBy: "GET /refuse").count - 1 > 1, "libcurl retried")
        }
    }

    @Test func invalidRequestsAreRejectedBeforeSending() async throws {
        let client = try HTTPClient()
        defer { client.shutdown() }
        let secret = "bearer SECRET-TOKEN"
        let injected = await thrownError {
            try await client.execute(.init(url: "https://127.0.0.1:1/", headers: ["authorization": secret + "\r\nx-evil: 1"]))
        } as? HTTPClientError
        #expect(injected?.code == .invalidRequest)
        #expect(!(injected?.description.contains("SECRET") ?? true))
        #expect(await clientErrorCode { try await client.execute(.init(url: "https://127.0.0.1:1/",
                                                                       headers: ["bad name": "x"])) } == .invalidRequest)
        #expect(await clientErrorCode { try await client.execute(.init(url: "https://127.0.0.1:1/",
                                                                       headers: ["content-length": "5"])) } == .invalidRequest)
        #expect(await clientErrorCode { try await client.execute(.init(url: "https://127.0.0.1:1/",
                                                                       headers: ["Content-Length": "5"])) } == .invalidRequest)
        #expect(await clientErrorCode { try await client.execute(.init(url: "https://127.0.0.1:1/",
                                                                       headers: ["Transfer-ENCODING": "chunked"])) } == .invalidRequest)
        #expect(await clientErrorCode { try await client.execute(.init(url: "htt://127.0.0.1/")) } == .invalidRequest)
        #expect(await clientErrorCode { try await client.execute(.init(url: "https:/127.0.0.1/")) } == .invalidRequest)
        #expect(await clientErrorCode { try await client.execute(.init(url: "ftp://127.0.0.1/")) } == .invalidRequest)
        #expect(await clientErrorCode { try await client.execute(.init(url: "https://127.0.0.1/a b")) } == .invalidRequest)
        #expect(await clientErrorCode { try await client.execute(.init(method: "GE T", url: "https://127.0.0.1/")) } == .invalidRequest)
        #expect(await clientErrorCode { try await client.execute(.init(url: "https://127.0.0.1/", timeout: .zero)) } == .invalidRequest)
    }

    @Test func badConfigurationFailsAtInit() {
        func code(_ adjust: (inout HTTPClient.Configuration) -> Void) -> HTTPClientError.Code? {
            var c = HTTPClient.Configuration()
            adjust(&c)
            do {
                _ = try HTTPClient(configuration: c)
                return nil
            } catch {
                return (error as? HTTPClientError)?.code
            }
        }
        #expect(code { $0.pinnedPublicKeys = ["sha256//notbase64!"] } == .invalidConfiguration)
        #expect(code { $0.pinnedPublicKeys = ["md5//AAAA"] } == .invalidConfiguration)
        #expect(code { $0.caFile = "/nonexistent/ca.pem" } == .invalidConfiguration)
        #expect(code { $0.totalTimeout = .zero } == .invalidConfiguration)
        #expect(code { $0.maxConnectionsPerHost = 0 } == .invalidConfiguration)
        #expect(code { _ in } == nil)
    }

    /// Errors and log lines name the origin, never the path, headers or body.
    @Test func noSecretsInErrorsOrLogs() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let sink = MemoryLogSink()
            let logger = Logger(service: "test", level: .trace, sink: sink)
            let client = try HTTPClient(configuration: .trusting(certificates), logger: logger)
            defer { client.shutdown() }
            let token = "DEVICETOKEN0123456789abcdef"
            let jwt = "bearer eyJSECRETJWT"
            let body = Array(#"{"ct":"CIPHERTEXT-SECRET"}"#.utf8)
            let headers: HTTPHeaders = ["authorization": jwt, "apns-topic": "app.mailwake.ios"]

            _ = try await client.execute(.init(method: .post, url: server.baseURL + "/echo/\(token)", headers: headers, body: body))
            let refusedPort = try PortAllocator.freePort()
            let failure = await thrownError { try await client.execute(.init(method: .post,
                                                                             url: "https://127.0.0.1:\(refusedPort)/3/device/\(token)",
                                                                             headers: headers, body: body)) }
            let tooLarge = await thrownError { try await client.execute(.init(method: .post, url: server.baseURL + "/echo/\(token)",
                                                                              headers: headers, body: body, maxResponseBytes: 10)) }
            let timeout = await thrownError { try await client.execute(.init(method: .post, url: server.baseURL + "/never/\(token)",
                                                                             headers: headers, body: body, timeout: .milliseconds(200))) }

            let lines = sink.lines
            #expect(lines.count >= 4)
            #expect(lines.contains { $0.contains(#""origin":"https://127.0.0.1:"#) })
            let texts = lines + [failure, tooLarge, timeout].map { "\(String(describing: $0))" }
            for text in texts {
                for secret in [token, "SECRETJWT", "CIPHERTEXT", "/echo/", "/3/device"] {
                    #expect(!text.contains(secret), "\(text) leaks \(secret)")
                }
            }
        }
    }
}
