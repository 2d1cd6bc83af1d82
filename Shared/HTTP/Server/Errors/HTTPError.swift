public import MailwakeHTTPTypes
public import MailwakeProtocol

/// An error that answers with a problem document (RFC 9457).
///
/// Handlers throw it for the caller's faults (4xx) and for known server
/// states (503). Anything else thrown becomes a 500 whose body says nothing
/// about the cause.
public struct HTTPError: Error, Sendable, HTTPResponseError {
    public var status: HTTPStatus
    /// A registered code (docs/problems.md); the problem `type` is `urn:mailwake:problem:<code>`.
    public var code: ProblemCode
    /// A human-readable explanation without secrets.
    public var detail: String
    /// Extra headers (`Retry-After`, `Allow`, `WWW-Authenticate`).
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, code: ProblemCode, detail: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
    }

    public func response(requestID: String) -> HTTPResponse {
        var response = ProblemDetails(status: status, code: code, detail: detail, requestID: requestID).response
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }
}

/// An error that knows its HTTP response; everything else maps to 500.
public protocol HTTPResponseError: Error {
    func response(requestID: String) -> HTTPResponse
}
