import MailwakeCore
import MailwakeHTTPServer
import MailwakeHTTPTypes
import TestSupport
import Testing

/// What a request leaves in the server's log: every line a handler writes and the access line carry its id.
@Suite("Request logging", .awaitedCleanup)
struct RequestLoggingTests {
    static func router() -> Router {
        var r = Router()
        r.get("/v1/noted") { _, context in
            context.logger.notice("noted by the handler")
            return .text("ok")
        }
        r.get("/v1/renamed") { _, context in
            var context = context
            context.logger = context.logger.with("step", .string("renamed"))
            context.logger.notice("noted with a step")
            return .text("ok")
        }
        return r
    }

    @Test func aHandlersLogLineAndTheAccessLineCarryTheRequestsID() async throws {
        let f = try ServerFixture.start(Self.router())
        let response = try await f.get("/v1/noted")
        let id = try #require(response.header("X-Request-Id"))
        let lines = f.logs.lines.filter { $0.contains(#""request_id":"\#(id)""#) }
        #expect(lines.contains { $0.contains("noted by the handler") })
        #expect(lines.contains { $0.contains(#""msg":"request""#) && $0.contains(#""route":"/v1/noted""#) })
    }

    @Test func aLoggerAHandlerSetsKeepsTheRequestsIDAndItsOwnMetadata() async throws {
        let f = try ServerFixture.start(Self.router())
        let response = try await f.get("/v1/renamed")
        let id = try #require(response.header("X-Request-Id"))
        let line = try #require(f.logs.lines.first { $0.contains("noted with a step") })
        #expect(line.contains(#""request_id":"\#(id)""#))
        #expect(line.contains(#""step":"renamed""#))
    }

    @Test func nothingBelowTheLoggersLevelIsWrittenAndTheContextSaysWhichLevelItWritesFrom() {
        let logs = MemoryLogSink()
        let context = RequestContext(requestID: "0123456789abcdef", logger: Logger(service: "test", level: .warning, sink: logs))
        #expect(context.logLevel == .warning)
        context.logger.info("below the level")
        context.logger.warning("at the level")
        #expect(logs.lines.count == 1)
        #expect(logs.lines.first?.contains(#""request_id":"0123456789abcdef""#) == true)
    }
}
