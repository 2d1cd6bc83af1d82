import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

/// Counts the HTTPS API's refusals (4xx) by problem code in
/// `mailwake_outpost_api_refusals_total{reason}`.
struct RefusalCountingMiddleware: HTTPMiddleware {
    let metrics: OutpostMetrics

    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
        do {
            let response = try await next(request, context)
            if (400...499).contains(response.status.code) { metrics.apiRefusal("http-\(response.status.code)") }
            return response
        } catch let error as HTTPError {
            if (400...499).contains(error.status.code) { metrics.apiRefusal(error.code.rawValue) }
            throw error
        } catch let error as ProtocolError {
            if (400...499).contains(error.httpStatus.code) { metrics.apiRefusal(error.code.rawValue) }
            throw error
        }
    }
}
