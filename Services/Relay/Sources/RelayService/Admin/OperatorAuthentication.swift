import Foundation
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeServiceSupport

/// Lets through the operator: the token as `Authorization: Bearer` or, for browsers, as the password of HTTP Basic
/// authentication (any user name). Without a configured token the operator pages answer 404.
struct OperatorAuthentication: HTTPMiddleware {
    let gate: BearerTokenGate?

    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
        try check(request)
        var context = context
        context.principal = Principal(.operator, id: "operator")
        return try await next(request, context)
    }

    private func check(_ request: HTTPRequest) throws {
        guard let gate else {
            throw HTTPError(.notFound, code: .operatorApiDisabled,
                            detail: "set MAILWAKE_RELAY_OPERATOR_TOKEN to enable the operator pages")
        }
        if let header = request.headers["Authorization"], header.hasPrefix("Basic "),
           let decoded = Data(base64Encoded: String(header.dropFirst(6))).map(Array.init),
           let colon = decoded.firstIndex(of: UInt8(ascii: ":")) {
            var bearer = request
            bearer.headers.replace("Authorization", "Bearer " + String(decoding: decoded[(colon + 1)...], as: UTF8.self))
            do {
                try gate.check(bearer)
                return
            } catch {}
        } else if request.headers["Authorization"]?.hasPrefix("Bearer ") == true {
            try gate.check(request)
            return
        }
        throw HTTPError(.unauthorized, code: .tokenRequired, detail: "the operator token is required",
                        headers: ["WWW-Authenticate": "Basic realm=\"mailwake-relay\", charset=\"UTF-8\""])
    }
}
