import Foundation
import MailwakeCore
import MailwakeHTTPServer
import MailwakeHTTPTesting
import MailwakeHTTPTypes
import Synchronization
import TestSupport
import Testing

/// Inline routes: a handler offered the request on the listener's thread,
/// which answers it then or later, or declines it to the ordinary route.
@Suite("HTTP server: inline routes", .awaitedCleanup)
struct InlineRouteTests {
    /// What the inline handler does with each request, by its `X-Inline` header.
    static func router(ordinaryCalls: Counts = Counts(), held: Held = Held()) -> Router {
        var router = Router()
        router.post("/v1/inline") { request, context in
            ordinaryCalls.add()
            return .json(bytes: Array(#"{"by":"ordinary","route":"\#(context.route)"}"#.utf8))
        }
        router.inline(.post, "/v1/inline") { request, context, reply in
            switch request.headers["X-Inline"] {
            case "now":
                reply(.json(bytes: Array(#"{"by":"inline","route":"\#(context.route)"}"#.utf8), status: .accepted))
            case "later":
                Thread.detachNewThread { reply(.json(bytes: Array(#"{"by":"later"}"#.utf8), status: .accepted)) }
            case "problem":
                reply.fail(HTTPError(.conflict, code: .eventConflict, detail: "inline conflict"))
            case "crash":
                reply.fail(CocoaError(.fileNoSuchFile))
            case "never":
                held.keep(reply)
            default:
                return false
            }
            return true
        }
        return router
    }

    /// How often the ordinary handler ran.
    final class Counts: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    /// Replies an inline handler kept without answering.
    final class Held: Sendable {
        private let replies = Mutex<[InlineReply]>([])
        func keep(_ reply: InlineReply) { replies.withLock { $0.append(reply) } }
        var count: Int { replies.withLock { $0.count } }
    }

    static func post(_ f: ServerFixture, _ target: String = "/v1/inline", mode: String) async throws -> RawResponse {
        try await f.request("POST \(target) HTTP/1.1\r\nHost: localhost\r\nX-Inline: \(mode)\r\nContent-Length: 2\r\n" +
                            "Connection: close\r\n\r\n{}")
    }

    @Test func anInlineHandlerAnswersWithoutTheOrdinaryRoute() async throws {
        let ordinary = Counts()
        let f = try ServerFixture.start(Self.router(ordinaryCalls: ordinary))
        let response = try await Self.post(f, mode: "now")
        #expect(response.status == 202)
        #expect(response.text == #"{"by":"inline","route":"/v1/inline"}"#)
        #expect(response.header("X-Request-Id")?.count == 16)
        #expect(ordinary.count == 0)
    }

    @Test func aDeclinedRequestTakesTheOrdinaryRoute() async throws {
        let ordinary = Counts()
        let f = try ServerFixture.start(Self.router(ordinaryCalls: ordinary))
        let response = try await Self.post(f, mode: "decline")
        #expect(response.status == 200)
        #expect(response.text == #"{"by":"ordinary","route":"/v1/inline"}"#)
        #expect(ordinary.count == 1)
    }

    @Test func anInlineHandlerMayAnswerLaterFromAnotherThread() async throws {
        let f = try ServerFixture.start(Self.router())
        let response = try await Self.post(f, mode: "later")
        #expect(response.status == 202)
        #expect(response.text == #"{"by":"later"}"#)
        // The access line is written after the answer is handed to the connection: wait for it.
        let logged = Flag()
        for _ in 0..<12_000 where !logged.isSet {
            if f.logs.lines.contains(where: { $0.contains(#""msg":"request""#) && $0.contains(#""route":"/v1/inline""#) }) { logged.set() }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(logged.isSet, "the access line names the inline route")
    }

    @Test func anInlineProblemIsAnsweredAsAHandlersWouldBe() async throws {
        let f = try ServerFixture.start(Self.router())
        let response = try await Self.post(f, mode: "problem")
        #expect(response.status == 409)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response.text.contains("inline conflict"))
    }

    @Test func anUnmappedInlineErrorIsA500ThatNamesNothing() async throws {
        let f = try ServerFixture.start(Self.router())
        let response = try await Self.post(f, mode: "crash")
        #expect(response.status == 500)
        #expect(!response.text.contains("NSCocoaErrorDomain"))
        #expect(f.logs.lines.contains { $0.contains("handler failed") && $0.contains("/v1/inline") })
    }

    @Test func anInlineRequestNeverAnsweredGetsTheDeadlinesAnswer() async throws {
        let held = Held()
        let f = try ServerFixture.start(Self.router(held: held)) { $0.requestDeadlineSeconds = 0.3 }
        let response = try await Self.post(f, mode: "never")
        #expect(response.status == 503)
        #expect(response.text.contains("deadline-exceeded"))
        #expect(held.count == 1)
    }

    @Test func otherSpellingsAndMethodsOfTheInlinePathTakeTheOrdinaryRouting() async throws {
        let ordinary = Counts()
        let f = try ServerFixture.start(Self.router(ordinaryCalls: ordinary))
        let escaped = try await Self.post(f, "/v1/%69nline", mode: "now")
        #expect(escaped.status == 200)
        #expect(ordinary.count == 1)
        let query = try await Self.post(f, "/v1/inline?x=1", mode: "now")
        #expect(query.status == 202, "the query is not part of the path")
        let get = try await f.get("/v1/inline")
        #expect(get.status == 405)
        #expect(get.header("Allow") == "POST")
    }

    @Test func theInMemoryClientOffersRequestsToInlineHandlersAsTheServerDoes() async throws {
        let ordinary = Counts()
        let client = RouterTestClient(Self.router(ordinaryCalls: ordinary))
        let now = await client.execute(HTTPRequest(method: .post, target: "/v1/inline", headers: ["X-Inline": "now"], body: []))
        #expect(now.status == .accepted)
        let declined = await client.execute(HTTPRequest(method: .post, target: "/v1/inline", headers: ["X-Inline": "no"], body: []))
        #expect(declined.status == .ok)
        let problem = await client.execute(HTTPRequest(method: .post, target: "/v1/inline", headers: ["X-Inline": "problem"], body: []))
        #expect(problem.status == .conflict)
        #expect(ordinary.count == 1)
    }
}
