import Foundation
import MailwakeHTTPClient
import MailwakeProtocol

/// The shapes of accounts' answers the tests read, decoded as a client would; the relay's own contract
/// (`DeviceAuthorization`) is the shared type itself.
enum AccountsResponses {
    /// `GET /v1/devices/{id}/entitlements`.
    struct Entitlement: Decodable {
        let entitled: Bool
        let source: String?
        let entitledUntil: Int64?
        enum CodingKeys: String, CodingKey {
            case entitled, source
            case entitledUntil = "entitled_until"
        }
    }

    /// `POST /internal/v1/devices/{id}/apns-token-invalid`.
    struct Cleared: Decodable { let cleared: Bool }

    /// `GET` and `POST /internal/v1/outposts`.
    struct OutpostStanding: Decodable {
        let outpostID: String
        let blocked: Bool
        enum CodingKeys: String, CodingKey {
            case outpostID = "outpost_id"
            case blocked
        }
    }

    /// `GET /internal/v1/devices/{id}/live-activities/{activity}`.
    struct ActivityToken: Decodable { let token: String }

    /// `POST /internal/v1/authorizations`.
    struct AuthorizationBatch: Decodable { let authorizations: [DeviceAuthorization] }

    /// `GET /v1/devices/{id}/diagnostics`.
    struct Diagnostics: Decodable {
        struct Record: Decodable {
            let eventID: String
            enum CodingKeys: String, CodingKey { case eventID = "event_id" }
        }
        let records: [Record]
    }
}

extension AccountsFixture {
    /// The body of `response` as `type`; a shape the test did not expect fails the test with the body's text.
    func decode<T: Decodable>(_ type: T.Type, _ response: HTTPClient.Response) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw TestResponseShapeError(expected: String(describing: type), status: response.status.code, body: response.text)
        }
    }
}

/// An answer that did not decode as the type the test expected.
struct TestResponseShapeError: Error, CustomStringConvertible {
    let expected: String
    let status: Int
    let body: String
    var description: String { "expected \(expected), got \(status): \(body)" }
}
