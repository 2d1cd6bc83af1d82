import MailwakeCore
import MailwakeHTTPTypes

/// One request handed to the nghttp2 client: who gets its answer, and what
/// the answer is logged and counted with. Retained by the C client from
/// submission until `on_done` takes it back, exactly once.
final class HTTP2Exchange: Sendable {
    /// Who gets the answer.
    enum Waiter: Sendable {
        /// A task suspended in `execute`. Unchecked: `on_done` takes the exchange back exactly once and resumes it
        /// then (the C client guarantees one `on_done` per submitted request, cancelled and shut-down ones included;
        /// HTTP2ClientTests cover each path).
        case task(UnsafeContinuation<HTTPClient.Response, any Error>)
        /// Called once, on the client's thread (`execute(_:then:)`).
        case callback(@Sendable (Result<HTTPClient.Response, any Error>) -> Void)
    }

    let waiter: Waiter
    let method: HTTPMethod
    let logger: Logger
    let started: ContinuousClock.Instant

    init(waiter: Waiter, method: HTTPMethod, logger: Logger) {
        self.waiter = waiter
        self.method = method
        self.logger = logger
        started = .now
    }

    /// Gives the waiter its answer.
    func resume(_ result: Result<HTTPClient.Response, any Error>) {
        switch waiter {
        case .task(let continuation): continuation.resume(with: result)
        case .callback(let callback): callback(result)
        }
    }
}
