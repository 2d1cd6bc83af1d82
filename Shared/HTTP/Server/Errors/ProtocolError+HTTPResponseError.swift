public import MailwakeHTTPTypes
public import MailwakeProtocol

/// Protocol check failures answer as problem documents whose code is the
/// protocol's stable error code (`bad_signature`, `clock_skew`, …).
extension ProtocolError: HTTPResponseError {
    /// The HTTP status for each protocol failure.
    public var httpStatus: HTTPStatus {
        switch code {
        case .malformed, .invalidKey, .wrongAudience, .wrongPairing, .upgradeRequired: .badRequest
        case .badSignature, .clockSkew, .replayed, .wrongKey, .badCredential, .badMAC: .unauthorized
        case .scopeNotOffered: .forbidden
        case .expired: .gone
        case .tooLarge: .contentTooLarge
        case .decryptionFailed: .badRequest
        default: .internalServerError
        }
    }

    public func response(requestID: String) -> HTTPResponse {
        let detail = httpStatus == .internalServerError ? "the server failed to handle the request" : message
        return ProblemDetails(status: httpStatus, code: ProblemCode(code), detail: detail, requestID: requestID).response
    }
}
