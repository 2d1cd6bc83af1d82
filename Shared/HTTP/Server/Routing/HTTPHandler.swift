/// Answers one request.
public typealias HTTPHandler = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// Wraps the handlers of a router: authentication, rate limits, headers.
///
/// Middleware runs in the order added, outermost first, after routing (so the
/// context already names the route and its parameters).
public protocol HTTPMiddleware: Sendable {
    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse
}
