import MailwakeCore
import MailwakeHTTPTypes

/// One request handed to the nghttp2 client: what its answer resumes, and
/// what the answer is logged and counted with. Retained by the C client
/// from submission until `on_done` takes it back, exactly once.
final class HTTP2Exchange: Sendable {
    /// Unchecked: `on_done` takes the exchange back exactly once and resumes it then (the C client guarantees one
    /// `on_done` per submitted request, cancelled and shut-down ones included; HTTP2ClientTests cover each path).
    let continuation: UnsafeContinuation<HTTPClient.Response, any Error>
    let method: HTTPMethod
    let logger: Logger
    let started: ContinuousClock.Instant

    init(continuation: UnsafeContinuation<HTTPClient.Response, any Error>, method: HTTPMethod, logger: Logger) {
        self.continuation = continuation
        self.method = method
        self.logger = logger
        started = .now
    }
}
