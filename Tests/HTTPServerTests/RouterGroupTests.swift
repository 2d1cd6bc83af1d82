import MailwakeHTTPClient
import MailwakeHTTPServer
import MailwakeHTTPTesting
import MailwakeHTTPTypes
import Testing

/// Route groups: prefixes, middleware order, and the principal authentication middleware leaves for handlers.
@Suite("HTTP server: route groups and authentication middleware")
struct RouterGroupTests {
    /// Appends its name to `X-Trace` on the way out, so the order middleware ran in shows in the response.
    struct Trace: HTTPMiddleware {
        let name: String
        func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
            var response = try await next(request, context)
            response.headers.replace("X-Trace", name + (response.headers["X-Trace"].map { "," + $0 } ?? ""))
            return response
        }
    }

    /// Lets through requests carrying `X-Key: good`, as the device `d1`.
    struct KeyAuthentication: HTTPMiddleware {
        func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
            guard request.headers["X-Key"] == "good" else { throw HTTPError(.unauthorized, code: .tokenRequired, detail: "no key") }
            var context = context
            context.principal = Principal(.device, id: "d1", record: Device(name: "alice's iPhone"))
            return try await next(request, context)
        }
    }

    struct Device: Sendable { let name: String }

    static func router() -> Router {
        var router = Router()
        router.get("/open") { _, context in .text("open principal=\(context.principal?.id ?? "none")") }
        router.group("/v1/devices", middleware: [Trace(name: "group"), KeyAuthentication()]) { devices in
            devices.get("/{id}") { _, context in
                .text("\(try context.parameter("id")) by \(try context.authenticated(Device.self).name)")
            }
            devices.group("/{id}/keys", middleware: [Trace(name: "inner")]) { keys in
                keys.post("/") { _, context in .text("keys of \(try context.parameter("id"))") }
            }
        }
        router.get("/forgot-middleware") { _, context in .text(try context.authenticated(Device.self).name) }
        router.add(middleware: Trace(name: "router"))
        return router
    }

    static let client = RouterTestClient(router())

    static func get(_ target: String, key: String? = nil) async -> HTTPClient.Response {
        await client.execute(.init(url: target, headers: key.map { ["X-Key": $0] } ?? [:]))
    }

    @Test func groupRoutesCarryTheGroupPrefixAndParameters() async {
        let response = await Self.get("/v1/devices/d1", key: "good")
        #expect(response.status == .ok)
        #expect(response.text == "d1 by alice's iPhone")
    }

    @Test func aGroupsMiddlewareRefusesBeforeItsHandlerRuns() async {
        let response = await Self.get("/v1/devices/d1", key: "bad")
        #expect(response.status == .unauthorized)
        #expect(response.text.contains("urn:mailwake:problem:token-required"))
    }

    @Test func routesOutsideTheGroupSkipItsMiddlewareAndHaveNoPrincipal() async {
        let response = await Self.get("/open")
        #expect(response.text == "open principal=none")
        #expect(response.headers["X-Trace"] == "router")
    }

    @Test func routerMiddlewareWrapsGroupMiddlewareWhichWrapsNestedGroups() async {
        let response = await Self.client.execute(.init(method: .post, url: "/v1/devices/d9/keys", headers: ["X-Key": "good"]))
        #expect(response.text == "keys of d9")
        #expect(response.headers["X-Trace"] == "router,group,inner")
    }

    @Test func aHandlerAskingForAPrincipalNoMiddlewareSetIsA500() async {
        let response = await Self.get("/forgot-middleware")
        #expect(response.status == .internalServerError)
        #expect(!response.text.contains("Device"))
    }

    @Test func theGroupedRoutesAreListedWithTheirFullPatterns() {
        #expect(Set(Self.router().routeList) == ["GET /open", "GET /v1/devices/{id}", "POST /v1/devices/{id}/keys",
                                                 "GET /forgot-middleware"])
    }
}
