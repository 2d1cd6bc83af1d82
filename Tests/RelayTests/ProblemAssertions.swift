import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
import Testing

/// Checks that a response is an RFC 9457 problem with `status` and `code`.
func expectProblem(_ response: HTTPClient.Response, _ status: HTTPStatus, _ code: String,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, "status \(response.status.code), body \(response.text)", sourceLocation: sourceLocation)
    #expect(response.headers["Content-Type"] == "application/problem+json", sourceLocation: sourceLocation)
    struct Problem: Decodable { let type: String }
    let problem = try? JSONDecoder().decode(Problem.self, from: Data(response.body))
    #expect(problem?.type == "urn:mailwake:problem:\(code)", "body \(response.text)", sourceLocation: sourceLocation)
}
