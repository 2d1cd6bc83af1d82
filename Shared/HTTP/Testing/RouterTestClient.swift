public import MailwakeCore
public import MailwakeHTTPClient
public import MailwakeHTTPServer
import MailwakeHTTPTypes

/// Runs a router without a socket, as Hummingbird's `app.test(.router)` does.
///
/// Requests go through the same ``RouterResponder`` the server uses (routing,
/// middleware, error mapping) and answer ``HTTPClient/Response`` values, so a
/// test written against a live server reads the same in memory. What only a
/// socket has is not here: body size limits, deadlines, TLS, connection limits.
public struct RouterTestClient: Sendable {
    let responder: RouterResponder
    let logger: Logger
    let remoteAddress: String
    let responseHeaders: [(String, String)]

    /// - Parameters:
    ///   - router: the routes under test, with their middleware.
    ///   - logger: handed to handlers in their context (`Logger.disabled` unless a test reads logs).
    ///   - remoteAddress: the peer address handlers see.
    ///   - responseHeaders: headers added to every response without one, as `HTTPServer.Configuration.responseHeaders`.
    public init(_ router: Router, logger: Logger = .disabled, remoteAddress: String = "127.0.0.1",
                responseHeaders: [(String, String)] = []) {
        responder = router.responder()
        self.logger = logger
        self.remoteAddress = remoteAddress
        self.responseHeaders = responseHeaders
    }

    /// Answers `request`; only the path and query of its URL are used.
    public func execute(_ request: HTTPClient.Request) async -> HTTPClient.Response {
        var headers = request.headers
        if let body = request.body, headers["Content-Length"] == nil { headers.add("Content-Length", String(body.count)) }
        return await execute(HTTPRequest(method: request.method, target: Self.target(of: request.url), headers: headers,
                                         body: request.body ?? [], remoteAddress: remoteAddress))
    }

    /// Answers `request` as the server would, with a fresh `X-Request-Id`.
    public func execute(_ request: HTTPRequest) async -> HTTPClient.Response {
        let requestID = RequestID.generate()
        var context = RequestContext(requestID: requestID, logger: logger, route: "unmatched")
        var response: HTTPResponse
        if let answer = await Self.answerInline(request, context: context, responder: responder) {
            response = answer
        } else {
            response = await responder.respond(to: request, context: &context)
        }
        response.headers.replace("X-Request-Id", requestID)
        for (name, value) in responseHeaders where response.headers[name] == nil { response.headers.replace(name, value) }
        return HTTPClient.Response(status: response.status, headers: response.headers, body: response.body, version: .http1_1,
                                   transfer: .init(newConnections: 0, localPort: 0, totalSeconds: 0, connectSeconds: 0))
    }

    /// The inline handler's answer as the server gives it, or nil when there is none or it declined the request.
    private static func answerInline(_ request: HTTPRequest, context: RequestContext, responder: RouterResponder) async -> HTTPResponse? {
        await withCheckedContinuation { (continuation: CheckedContinuation<HTTPResponse?, Never>) in
            let taken = responder.offerInline(request, context: context) { response, _ in continuation.resume(returning: response) }
            if !taken { continuation.resume(returning: nil) }
        }
    }

    /// `/path?query` of an absolute URL, or the string itself when it is already a target.
    static func target(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let target = String(rest[slash...])
        return target.hasPrefix("?") ? "/" + target : target
    }
}
