import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPServer
import MailwakeHTTPTesting
import MailwakeHTTPTypes
import TestSupport
import Testing

/// Routing, JSON and problems run in memory; what only a socket shows (header sanitizing, the access log, listener rules) runs on one.
@Suite("HTTP server: routing, JSON and problems", .awaitedCleanup)
struct RoutingTests {
    static func router() -> Router {
        var r = Router()
        r.get("/v1/things/{id}") { request, context in
            .text("thing \(try context.parameter("id")) wait=\(request.query("wait") ?? "-") route=\(context.route)")
        }
        r.post("/v1/echo") { request, _ in
            try .json(try request.decodeJSON(Echo.self))
        }
        r.get("/v1/fail") { _, _ in
            struct Secret: Error { let token = "s3cr3t-token" }
            throw Secret()
        }
        r.get("/v1/teapot") { _, _ in
            throw HTTPError(.tooManyRequests, code: .rateLimited, detail: "slow down", headers: ["Retry-After": "7"])
        }
        r.get("/v1/split") { _, _ in
            HTTPResponse(status: .ok, headers: ["X-Bad": "a\r\nSet-Cookie: x=1", "X-Good": "fine"], body: [])
        }
        return r
    }

    static let client = RouterTestClient(router())

    static func post(_ target: String, body: String, contentType: String = "application/json") async -> HTTPClient.Response {
        await client.execute(.init(method: .post, url: target, headers: ["Content-Type": contentType], body: Array(body.utf8)))
    }

    @Test func pathParametersAreDecodedAndTheQueryIsAvailable() async throws {
        let response = await Self.client.execute(.init(url: "/v1/things/a%20b?wait=30"))
        #expect(response.status == .ok)
        #expect(response.text == "thing a b wait=30 route=/v1/things/{id}")
        #expect(response.headers["X-Request-Id"]?.count == 16)
    }

    @Test func aLiteralPathIsRoutedAsTheFullMatchWouldRouteItWhateverItsSpelling() async throws {
        var r = Router()
        r.get("/v1/{kind}/list") { _, context in .text("first \(try context.parameter("kind")) \(context.route)") }
        r.get("/v1/things/list") { _, context in .text("second \(context.route)") }
        r.post("/v1/things/list") { _, context in .text("post \(context.route)") }
        let client = RouterTestClient(r)
        for spelling in ["/v1/things/list", "/v1//things/list", "/v1/th%69ngs/list", "/v1/things/list/"] {
            let response = await client.execute(.init(url: spelling))
            #expect(response.text == "first things /v1/{kind}/list", "GET \(spelling)")
        }
        #expect(await client.execute(.init(method: .post, url: "/v1/things/list")).text == "post /v1/things/list")
        let deleted = await client.execute(.init(method: .delete, url: "/v1/things/list"))
        #expect(deleted.status == .methodNotAllowed)
    }

    @Test func strictJSONRoundTrips() async throws {
        let ok = await Self.post("/v1/echo", body: #"{"name":"x","count":2}"#)
        #expect(ok.status == .ok)
        #expect(ok.text == #"{"count":2,"name":"x"}"#)
    }

    @Test(arguments: [#"{"name":"x","count":2,"name":"y"}"#, #"{"name":"x","count":2.0}"#, #"{"name":"x"}"#, "{", "[]"])
    func malformedJSONIsA400Problem(body: String) async throws {
        let response = await Self.post("/v1/echo", body: body)
        #expect(response.status == .badRequest)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.text.contains(#""type":"urn:mailwake:problem:malformed""#))
    }

    @Test func aNonJSONContentTypeIs415() async throws {
        #expect(await Self.post("/v1/echo", body: "name=x",
                                contentType: "application/x-www-form-urlencoded").status == .unsupportedMediaType)
    }

    @Test func unknownPathsAre404AndWrongMethods405WithAllow() async throws {
        let missing = await Self.client.execute(.init(url: "/v1/nothing"))
        #expect(missing.status == .notFound)
        #expect(missing.text.contains("urn:mailwake:problem:not-found"))
        let wrong = await Self.post("/v1/things/1", body: "{}")
        #expect(wrong.status == .methodNotAllowed)
        #expect(wrong.headers["Allow"] == "GET")
    }

    @Test func unmappedErrorsAre500WithoutDetailsInTheBody() async throws {
        let response = await Self.client.execute(.init(url: "/v1/fail"))
        #expect(response.status == .internalServerError)
        #expect(!response.text.contains("s3cr3t"))
        #expect(response.text.contains("urn:mailwake:problem:internal"))
    }

    @Test func httpErrorsCarryTheirHeaders() async throws {
        let response = await Self.client.execute(.init(url: "/v1/teapot"))
        #expect(response.status == .tooManyRequests)
        #expect(response.headers["Retry-After"] == "7")
    }

    @Test func headerValuesWithLineBreaksAreDropped() async throws {
        let f = try ServerFixture.start(Self.router())
        let response = try await f.get("/v1/split")
        #expect(response.header("X-Bad") == nil)
        #expect(response.header("Set-Cookie") == nil)
        #expect(response.header("X-Good") == "fine")
    }

    @Test func invalidPercentEncodingIsABadRequest() async throws {
        #expect(await Self.client.execute(.init(url: "/v1/things/%ZZ")).status == .badRequest)
        #expect(await Self.client.execute(.init(url: "/v1/things/%C0%AF")).status == .badRequest)
    }

    @Test func theAccessLogNamesTheRouteAndNeverTheBodyOrAuthorization() async throws {
        let f = try ServerFixture.start(Self.router())
        let body = #"{"name":"body-secret","count":11}"#
        let response = try await f.request("""
                                           POST /v1/echo?ref=opaque-ref HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \
                                           top-secret-token\r\nContent-Type: application/json\r\nContent-Length: \
                                           \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)
                                           """)
        #expect(response.status == 200)
        await f.stop()
        let lines = f.logs.lines
        let access = lines.filter { $0.contains(#""msg":"request""#) }
        #expect(access.count == 1)
        #expect(access.first?.contains(#""route":"/v1/echo""#) == true)
        #expect(access.first?.contains(#""status":200"#) == true)
        for line in lines {
            #expect(!line.contains("top-secret-token"))
            #expect(!line.contains("body-secret"))
            #expect(!line.contains("opaque-ref"))
        }
    }

    @Test func plainHTTPIsRefusedUnlessExplicitAndLoopback() throws {
        var c = HTTPServer.Configuration()
        c.port = 0
        let s1 = HTTPServer(configuration: c, router: Router(), logger: .disabled, metrics: MetricsRegistry())
        #expect(throws: HTTPServerError.self) { try s1.start() }
        c.allowPlainHTTP = true
        c.host = "0.0.0.0"
        let s2 = HTTPServer(configuration: c, router: Router(), logger: .disabled, metrics: MetricsRegistry())
        #expect(throws: HTTPServerError.self) { try s2.start() }
    }
}
