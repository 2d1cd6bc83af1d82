/// Answers one request on the thread that read it, without a task, or declines it.
///
/// It runs on the listener's I/O thread, so it must never block or wait:
/// it does what it can from memory and either takes the request (returns
/// `true` and calls `reply` exactly once, then or later, from any thread) or
/// declines it (returns `false` without calling `reply`), and the request
/// goes to the route's ordinary handler, which every inline route has.
/// Middleware does not run around an inline handler; an error passed to
/// `reply` is mapped as the responder maps a handler's.
public typealias InlineHandler = @Sendable (HTTPRequest, RequestContext, InlineReply) -> Bool

/// How an inline handler answers its request: once, from any thread.
public struct InlineReply: Sendable {
    private let deliver: @Sendable (Result<HTTPResponse, any Error>) -> Void

    /// - Parameter deliver: sends the answer (the server's, or a test client's).
    public init(_ deliver: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) {
        self.deliver = deliver
    }

    /// Answers with `response`.
    public func callAsFunction(_ response: HTTPResponse) { deliver(.success(response)) }

    /// Answers with what `error` maps to (an ``HTTPResponseError``'s own response, a 500 otherwise).
    public func fail(_ error: any Error) { deliver(.failure(error)) }
}
