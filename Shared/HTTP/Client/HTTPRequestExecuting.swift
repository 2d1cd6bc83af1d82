public import MailwakeCore

/// Something that sends `HTTPClient.Request`s: the libcurl `HTTPClient`, or
/// the single-origin `HTTP2Client` on nghttp2.
public protocol HTTPRequestExecuting: Sendable {
    /// Sends `request` and returns the response, whatever its status; throws
    /// `HTTPClientError` when no complete response arrived, and
    /// `CancellationError` when the calling task is cancelled.
    func execute(_ request: HTTPClient.Request, logger: Logger?) async throws -> HTTPClient.Response
    /// Sends `request` without the caller waiting: `completion` gets the response or the error, once, on a thread
    /// of the client's choosing. It must not block.
    func execute(_ request: HTTPClient.Request, logger: Logger?,
                 then completion: @escaping @Sendable (Result<HTTPClient.Response, any Error>) -> Void)
    /// Fails what is pending with `.shutdown` and closes the connections. Idempotent.
    func shutdown()
}

extension HTTPRequestExecuting {
    /// A task awaits the answer and calls `completion` with it (clients without a callback path of their own).
    public func execute(_ request: HTTPClient.Request, logger: Logger?,
                        then completion: @escaping @Sendable (Result<HTTPClient.Response, any Error>) -> Void) {
        Task { completion(await Result { try await execute(request, logger: logger) }) }
    }
}

extension HTTPClient: HTTPRequestExecuting {}
