public import MailwakeCore

/// Something that sends `HTTPClient.Request`s: the libcurl `HTTPClient`, or
/// the single-origin `HTTP2Client` on nghttp2.
public protocol HTTPRequestExecuting: Sendable {
    /// Sends `request` and returns the response, whatever its status; throws
    /// `HTTPClientError` when no complete response arrived, and
    /// `CancellationError` when the calling task is cancelled.
    func execute(_ request: HTTPClient.Request, logger: Logger?) async throws -> HTTPClient.Response
    /// Fails what is pending with `.shutdown` and closes the connections. Idempotent.
    func shutdown()
}

extension HTTPClient: HTTPRequestExecuting {}
