public import MailwakeHTTPServer
import MailwakeHTTPTypes

/// Lets through requests carrying one of a gate's bearer tokens, as `principal`; answers 401 otherwise.
///
/// Put it on the group of routes the token opens (accounts' internal API for
/// the relay's service token, the operator pages for the operator's).
public struct BearerTokenAuthentication: HTTPMiddleware {
    let gate: BearerTokenGate
    let principal: Principal

    /// - Parameters:
    ///   - gate: the accepted tokens.
    ///   - kind: who holds them (`.service` or `.operator`).
    ///   - name: the holder's name in the principal (`relay`, `operator`).
    public init(_ gate: BearerTokenGate, as kind: Principal.Kind, named name: String) {
        self.gate = gate
        principal = Principal(kind, id: name)
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
        try gate.check(request)
        var context = context
        context.principal = principal
        return try await next(request, context)
    }
}
