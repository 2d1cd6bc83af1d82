public import MailwakeAppStore
public import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

/// StoreKit verification failures answer as problems carrying the verifier's
/// stable code (`chain-untrusted`, `signature-invalid`, `bundle-mismatch`, …).
extension AppStoreVerificationError: HTTPResponseError {
    public func response(requestID: String) -> HTTPResponse {
        let internalFailure = code == .configurationInvalid
        return ProblemDetails(status: internalFailure ? .internalServerError : .unprocessableContent,
                              code: ProblemCode(registered: code.rawValue) ?? .internalError,
                              detail: internalFailure ? "App Store verification is misconfigured" : message, requestID: requestID).response
    }
}
