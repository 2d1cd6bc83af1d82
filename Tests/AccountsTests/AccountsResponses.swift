import MailwakeHTTPClient
import MailwakeProtocol
import TestSupport

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

    /// `POST /v1/devices`: the device and its new session.
    struct Registration: Decodable {
        let deviceID: String
        let sessionID: String
        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case sessionID = "session_id"
        }
    }

    /// `PATCH /v1/devices/{id}`.
    struct DeviceSummary: Decodable {
        let appVersion: String?
        enum CodingKeys: String, CodingKey { case appVersion = "app_version" }
    }

    /// `DELETE /v1/devices/{id}`: the code that restores the device.
    struct Deleted: Decodable {
        let recoveryCode: String
        enum CodingKeys: String, CodingKey { case recoveryCode = "recovery_code" }
    }

    /// `GET /v1/devices/{id}/sessions`.
    struct Sessions: Decodable {
        struct Session: Decodable {
            let sessionID: String
            enum CodingKeys: String, CodingKey { case sessionID = "session_id" }
        }
        let sessions: [Session]
    }

    /// One purchase and the devices it entitles (`GET /v1/devices/{id}/purchases`, the operator's look-up).
    struct Purchase: Decodable {
        struct LinkedDevice: Decodable {
            let deviceID: String
            enum CodingKeys: String, CodingKey { case deviceID = "device_id" }
        }
        let originalTransactionID: String
        let deviceLimit: Int
        let expiresAt: Int64?
        let devices: [LinkedDevice]
        enum CodingKeys: String, CodingKey {
            case originalTransactionID = "original_transaction_id"
            case deviceLimit = "device_limit"
            case expiresAt = "expires_at"
            case devices
        }
    }

    /// `GET /v1/devices/{id}/purchases`.
    struct DevicePurchases: Decodable {
        let deviceID: String
        let purchases: [Purchase]
        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case purchases
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
    /// What the relay learns about `device` (`GET /internal/v1/devices/{id}/authorization` with the service token).
    func authorization(of device: Device) async throws -> DeviceAuthorization {
        let response = try await send(.get, "/internal/v1/devices/\(device.id)/authorization", bearer: Self.serviceToken)
        return try response.decode(DeviceAuthorization.self)
    }

    /// The session a registration of `device` answered.
    func registeredSession(_ device: Device) async throws -> String {
        try await register(device).decode(AccountsResponses.Registration.self).sessionID
    }
}
