public import MailwakeHTTPTypes
public import MailwakeProtocol

/// An RFC 9457 problem document: `application/problem+json` with `type`,
/// `title`, `status`, `detail` and the request id.
public struct ProblemDetails: Sendable, Hashable {
    /// The `type` URI prefix of every Mailwake problem.
    public static let typePrefix = "urn:mailwake:problem:"

    public var status: HTTPStatus
    public var code: ProblemCode
    public var detail: String
    public var requestID: String

    public init(status: HTTPStatus, code: ProblemCode, detail: String, requestID: String) {
        self.status = status
        self.code = code
        self.detail = detail
        self.requestID = requestID
    }

    /// `urn:mailwake:problem:<code>`.
    public var type: String { Self.typePrefix + code.rawValue }

    public var jsonBytes: [UInt8] {
        var w = JSONWriter(capacity: 160 + detail.utf8.count)
        w.beginObject()
        w.string("type", type)
        w.string("title", status.reasonPhrase.isEmpty ? "Error" : status.reasonPhrase)
        w.int("status", Int64(status.code))
        w.string("detail", detail)
        w.string("request_id", requestID)
        w.endObject()
        return w.bytes
    }

    /// The response carrying this document.
    public var response: HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/problem+json"], body: jsonBytes)
    }
}
