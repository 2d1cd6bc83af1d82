import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// Checks that a response is an RFC 9457 problem with `status` and `code`.
func expectProblem(_ response: HTTPClient.Response, _ status: HTTPStatus, _ code: String,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, "status \(response.status.code), body \(response.text)", sourceLocation: sourceLocation)
    #expect(response.headers["Content-Type"] == "application/problem+json", sourceLocation: sourceLocation)
    #expect(response.problemCode == code, "body \(response.text)", sourceLocation: sourceLocation)
}
