import Foundation
public import MailwakeHTTPTypes

extension HTTPResponse {
    /// A JSON response from already serialised bytes.
    public static func json(bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }

    /// A JSON response from an `Encodable` value (sorted keys, no escaped slashes).
    public static func json(_ value: some Encodable, status: HTTPStatus = .ok) throws -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return .json(bytes: Array(try encoder.encode(value)), status: status)
    }
}
