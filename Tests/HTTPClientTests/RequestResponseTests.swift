import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// Against the Python test server, which echoes what it received.
@Suite struct RequestResponseTests {
    static let apnsHeaders: HTTPHeaders = [
        "authorization": "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyMyJ9.eyJpc3MiOiJ0ZWFtIn0.c2lnbmF0dXJl",
        "apns-topic": "app.mailwake.ios",
        "apns-push-type": "alert",
        "apns-id": "0E8B1A5C-1B2D-4E3F-9A8B-7C6D5E4F3A2B",
        "apns-priority": "10",
        "content-type": "application/json",
        "x-empty": "",
    ]

    /// Headers and body arrive exactly as given, over HTTP/2 and HTTP/1.1.
    @Test(arguments: [HTTPClient.VersionPreference.http2, .http1_1])
    func headersAndBodyAreSentExactly(version: HTTPClient.VersionPreference) async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates) { $0.httpVersion = version })
            defer { client.shutdown() }
            let body = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) } // NULs and every byte value

            let response = try await client.execute(.init(method: .post, url: server.baseURL + "/echo?q=1", headers: Self.apnsHeaders,
                                                          body: body))
            let echo = try Echo(response)
            #expect(response.version == (version == .http2 ? .http2 : .http1_1))
            #expect(echo.version == (version == .http2 ? "HTTP/2" : "HTTP/1.1"))
            #expect(echo.method == "POST")
            #expect(echo.path == "/echo?q=1")
            #expect(echo.bodyBytes == body)
            // The caller's headers, in order, with their values; around them
            // only what curl must add (host, user-agent, accept, content-length).
            let added: Set = ["host", "user-agent", "accept", "content-length"]
            let sent = echo.fields.filter { !added.contains($0.0) }
            #expect(sent.map(\.0) == Self.apnsHeaders.fields.map { $0.name.lowercased() })
            #expect(sent.map(\.1) == Self.apnsHeaders.fields.map(\.value))
            #expect(echo.value("content-length") == String(body.count))
            #expect(echo.value("user-agent") == "mailwake/\(MailwakeVersion.current)")
            #expect(echo.fields.filter { $0.0 == "content-type" }.count == 1)
            #expect(echo.value("expect") == nil)
        }
    }

    @Test func noContentTypeIsInventedAndMethodsAreSentAsGiven() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            let base = server.baseURL

            let post = try Echo(try await client.execute(.init(method: .post, url: base + "/echo", body: Array("a=b".utf8))))
            #expect(post.value("content-type") == nil)
            let emptyPost = try Echo(try await client.execute(.init(method: .post, url: base + "/echo")))
            #expect(emptyPost.value("content-length") == "0" && emptyPost.bodyBytes.isEmpty)
            for method in [HTTPMethod.put, .patch, .delete] {
                let echo = try Echo(try await client.execute(.init(method: method, url: base + "/echo", body: Array("x".utf8))))
                #expect(echo.method == method.rawValue && echo.bodyBytes == Array("x".utf8))
            }
            let delete = try Echo(try await client.execute(.init(method: .delete, url: base + "/echo")))
            #expect(delete.method == "DELETE" && delete.bodyBytes.isEmpty)
            let get = try Echo(try await client.execute(.init(url: base + "/echo")))
            #expect(get.method == "GET" && get.value("content-length") == nil)
            let head = try await client.execute(.init(method: .head, url: base + "/echo"))
            #expect(head.status == .ok && head.body.isEmpty)
            let custom = try Echo(try await client.execute(.init(url: base + "/echo",
                                                                 headers: ["User-Agent": "custom/1", "Accept": "application/json"])))
            #expect(custom.value("user-agent") == "custom/1" && custom.value("accept") == "application/json")
        }
    }

    /// What the relay needs from APNs answers: status, `apns-id`, JSON error body.
    @Test(arguments: [HTTPClient.VersionPreference.http2, .http1_1])
    func apnsStyleErrorResponse(version: HTTPClient.VersionPreference) async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates) { $0.httpVersion = version })
            defer { client.shutdown() }
            let id = "7A3C2D1E-0000-4000-8000-00000000ABCD"
            let url = server.baseURL + """
                                       /status/400?header=apns-id:\(id)&header=x-multi:1&header=x-multi:2&body=%7B%22reason%22%3A%22Bad\
                                       DeviceToken%22%7D
                                       """

            let response = try await client.execute(.init(method: .post, url: url, headers: Self.apnsHeaders, body: Array("{}".utf8)))
            #expect(response.status == .badRequest)
            #expect(response.headers["apns-id"] == id)
            #expect(response.headers["APNS-ID"] == id)
            #expect(response.headers.values(for: "x-multi") == ["1", "2"])
            struct Reason: Decodable { let reason: String }
            #expect(try JSONDecoder().decode(Reason.self, from: Data(response.body)).reason == "BadDeviceToken")
        }
    }

    @Test func http11IsUsedWhenForcedOrWhenTheServerOffersNothingElse() async throws {
        try await withCertificates { certificates in
            let both = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { both.stop() }
            let onlyH1 = try await PythonHTTPTestServer.start(certificates: certificates, alpn: ["http/1.1"])
            defer { onlyH1.stop() }

            let forced = try HTTPClient(configuration: .trusting(certificates) { $0.httpVersion = .http1_1 })
            defer { forced.shutdown() }
            let r1 = try await forced.execute(.init(url: both.baseURL + "/echo"))
            #expect(r1.version == .http1_1)
            #expect(try Echo(r1).version == "HTTP/1.1")

            let preferring = try HTTPClient(configuration: .trusting(certificates))
            defer { preferring.shutdown() }
            #expect(try await preferring.execute(.init(url: both.baseURL + "/echo")).version == .http2)
            #expect(try await preferring.execute(.init(url: onlyH1.baseURL + "/echo")).version == .http1_1)
        }
    }

    @Test func cleartextHTTP11AndHTTP2PriorKnowledge() async throws {
        let server = try await PythonHTTPTestServer.start(certificates: nil)
        defer { server.stop() }
        let plain = try HTTPClient()
        defer { plain.shutdown() }
        #expect(try Echo(try await plain.execute(.init(url: server.baseURL + "/echo"))).version == "HTTP/1.1")

        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http2PriorKnowledge
        let h2c = try HTTPClient(configuration: configuration)
        defer { h2c.shutdown() }
        let response = try await h2c.execute(.init(url: server.baseURL + "/echo"))
        #expect(response.version == .http2)
        #expect(try Echo(response).version == "HTTP/2")
    }

    @Test func redirectsAreNotFollowedUnlessAsked() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            let url = server.baseURL + "/redirect?to=/echo"

            let plain = try await client.execute(.init(url: url))
            #expect(plain.status.code == 302)
            #expect(plain.headers["location"] == "/echo")

            let followed = try await client.execute(.init(url: url, followRedirects: true))
            #expect(followed.status == .ok)
            #expect(try Echo(followed).path == "/echo")

            let following = try HTTPClient(configuration: .trusting(certificates) { $0.followRedirects = true; $0.maxRedirects = 2 })
            defer { following.shutdown() }
            #expect(try await following.execute(.init(url: url)).status == .ok)
            // A loop ends with a protocol error after maxRedirects.
            #expect(await clientErrorCode { try await following.execute(.init(url: server.baseURL + "/loop")) } == .protocol)
        }
    }

    /// Without a Content-Length the limit is enforced while reading.
    @Test(arguments: [HTTPClient.VersionPreference.http2, .http1_1])
    func sizeLimitWithoutContentLength(version: HTTPClient.VersionPreference) async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates) { $0.httpVersion = version; $0.maxResponseBytes = 100_000 })
            defer { client.shutdown() }
            let fits = try await client.execute(.init(url: server.baseURL + "/bytes?n=100000&chunked=1"))
            #expect(fits.body.count == 100_000 && fits.headers["content-length"] == nil)
            #expect(await clientErrorCode { try await client.execute(.init(url: server.baseURL + """
                /bytes?n=100001&ch\
                unked=1
                """)) } == .responseTooLarge)
            #expect(await clientErrorCode { try await client.execute(.init(url: server.baseURL + """
                /bytes?n=2000000&ch\
                unked=1
                """)) } == .responseTooLarge)
            // The client is still fine afterwards.
            #expect(try await client.execute(.init(url: server.baseURL + "/echo")).status == .ok)
        }
    }

    /// Finished transfers are reset and reused (`TransferPool`): one request at a time on one client, so each takes the
    /// transfer the one before gave back, and nothing of that one (method, headers, body, size limit, refusal) carries over.
    @Test(arguments: [HTTPClient.VersionPreference.http2, .http1_1])
    func aReusedTransferCarriesNothingFromTheRequestBefore(version: HTTPClient.VersionPreference) async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates) { $0.httpVersion = version })
            defer { client.shutdown() }
            let base = server.baseURL
            let put = try Echo(try await client.execute(.init(method: .put, url: base + "/echo", headers: ["x-once": "1"],
                                                              body: Array("first".utf8))))
            #expect(put.method == "PUT" && put.value("x-once") == "1")
            let get = try Echo(try await client.execute(.init(url: base + "/echo")))
            #expect(get.method == "GET" && get.value("x-once") == nil && get.bodyBytes.isEmpty && get.value("content-length") == nil)
            #expect(await clientErrorCode { try await client.execute(.init(url: base + "/bytes?n=5000", maxResponseBytes: 100)) }
                == .responseTooLarge)
            let after = try await client.execute(.init(url: base + "/bytes?n=5000"))
            #expect(after.status == .ok && after.body.count == 5000)
            let head = try await client.execute(.init(method: .head, url: base + "/echo"))
            #expect(head.status == .ok && head.body.isEmpty)
            let post = try Echo(try await client.execute(.init(method: .post, url: base + "/echo", body: Array("second".utf8))))
            #expect(post.method == "POST" && post.bodyBytes == Array("second".utf8) && post.value("x-once") == nil)
        }
    }

    @Test func streamsOnOneConnectionAtTheServer() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            let base = server.baseURL
            let echoes = try await withThrowingTaskGroup(of: Echo.self) { group in
                for i in 0..<20 {
                    group.addTask { try Echo(try await client.execute(.init(url: base + "/delay?ms=\(50 + i * 5)"))) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(echoes.count == 20)
            #expect(Set(echoes.map(\.connection)).count == 1)
            #expect(Set(echoes.map(\.stream)).count == 20)
            #expect(try await server.connectionCount(including: echoes.map(\.connection)) == 1)
        }
    }

    /// A server allowing few streams per connection (APNs starts low): with
    /// `maxConcurrentStreams` at its limit nothing is refused; libcurl spreads
    /// the requests over up to `maxConnectionsPerHost` connections.
    @Test func lowServerStreamLimit() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates, maxConcurrentStreams: 2)
            defer { server.stop() }
            let client =
                try HTTPClient(configuration: .trusting(certificates) { $0.maxConcurrentStreams = 2; $0.maxConnectionsPerHost = 3 })
            defer { client.shutdown() }
            let base = server.baseURL
            let echoes = try await withThrowingTaskGroup(of: Echo.self) { group in
                for _ in 0..<12 { group.addTask { try Echo(try await client.execute(.init(url: base + "/delay?ms=50"))) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(echoes.count == 12)
            #expect(Set(echoes.map(\.connection)).count <= 3)
            #expect(!server.logText().contains("refused"))
        }
    }

    @Test func metricsCountOutcomes() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let registry = MetricsRegistry()
            let client = try HTTPClient(configuration: .trusting(certificates) { $0.name = "apns" }, metrics: registry)
            defer { client.shutdown() }
            _ = try await client.execute(.init(url: server.baseURL + "/echo"))
            _ = try await client.execute(.init(url: server.baseURL + "/status/410"))
            _ = await thrownError { try await client.execute(.init(url: server.baseURL + "/bytes?n=10", maxResponseBytes: 1)) }
            let text = registry.render()
            #expect(text.contains(#"mailwake_http_client_requests_total{client="apns",outcome="2xx"} 1"#))
            #expect(text.contains(#"mailwake_http_client_requests_total{client="apns",outcome="4xx"} 1"#))
            #expect(text.contains(#"mailwake_http_client_requests_total{client="apns",outcome="response_too_large"} 1"#))
            #expect(text.contains(#"mailwake_http_client_request_duration_seconds_count{client="apns"} 3"#))
            #expect(text.contains(#"mailwake_http_client_in_flight{client="apns"} 0"#))
        }
    }
}

/// Idle connections are kept for the next requests, up to the per-host limit.
@Suite struct ConnectionReuseTests {
    @Test func aQuietSpellBetweenBurstsClosesNoHTTP1Connection() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates, alpn: ["http/1.1"])
            defer { server.stop() }
            let width = 12
            let client = try HTTPClient(configuration: .trusting(certificates) {
                $0.httpVersion = .http1_1
                $0.maxConnectionsPerHost = width
            })
            defer { client.shutdown() }
            func burst() async throws -> (newConnections: Int, connections: Set<Int>) {
                try await withThrowingTaskGroup(of: HTTPClient.Response.self) { group in
                    for _ in 0..<width { group.addTask { try await client.execute(.init(url: server.baseURL + "/echo")) } }
                    var opened = 0
                    var seen = Set<Int>()
                    for try await response in group {
                        opened += response.transfer.newConnections
                        seen.insert(try Echo(response).connection)
                    }
                    return (opened, seen)
                }
            }
            let first = try await burst()
            #expect(first.newConnections >= 2, "the burst needed several connections")
            // One request at a time: few transfers in flight.
            for _ in 0..<3 { _ = try await client.execute(.init(url: server.baseURL + "/echo")) }
            let second = try await burst()
            #expect(second.newConnections <= width - first.newConnections,
                    "connections of the first burst were kept: \(second.newConnections) new")
        }
    }
}
