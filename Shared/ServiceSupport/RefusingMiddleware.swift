public import MailwakeHTTPServer
import MailwakeHTTPTypes

/// Answers every request of its group with one error: the routes of a feature the configuration turned off.
public struct RefusingMiddleware: HTTPMiddleware {
    let error: HTTPError

    public init(_ error: HTTPError) { self.error = error }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
        throw error
    }
}
