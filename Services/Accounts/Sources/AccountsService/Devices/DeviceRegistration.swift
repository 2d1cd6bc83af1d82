import MailwakeProtocol

/// The body of `POST /v1/devices`: a device's keys and push addresses.
struct DeviceRegistration: Decodable, Sendable {
    var signingKey: [UInt8]
    var agreementKey: [UInt8]
    var apnsToken: String
    var apnsEnvironment: PushEnvironment
    var bundleID: String
    var appVersion: String
    var pushToStartToken: String?
    /// The App's recovery step for a deleted device: the code `DELETE /v1/devices/{id}` answered.
    var recoveryCode: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case signingKey = "signing_key"
        case agreementKey = "agreement_key"
        case apnsToken = "apns_token"
        case apnsEnvironment = "apns_environment"
        case bundleID = "bundle_id"
        case appVersion = "app_version"
        case pushToStartToken = "push_to_start_token"
        case recoveryCode = "recovery_code"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "device registration")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        signingKey = try DeviceFields.key(c.decode(String.self, forKey: .signingKey), field: "signing_key")
        agreementKey = try DeviceFields.key(c.decode(String.self, forKey: .agreementKey), field: "agreement_key")
        apnsToken = try DeviceFields.apnsToken(c.decode(String.self, forKey: .apnsToken), field: "apns_token")
        apnsEnvironment = try c.decode(PushEnvironment.self, forKey: .apnsEnvironment)
        bundleID = try DeviceFields.bundleID(c.decode(String.self, forKey: .bundleID))
        appVersion = try DeviceFields.short(c.decode(String.self, forKey: .appVersion), field: "app_version")
        pushToStartToken = try c.decodeIfPresent(String.self,
                                                 forKey: .pushToStartToken).map { try DeviceFields.apnsToken($0,
                                                     field: "push_to_start_token") }
        recoveryCode = try c.decodeIfPresent(String.self, forKey: .recoveryCode).map { code in
            guard (1...128).contains(code.utf8.count) else { throw ProtocolError(.malformed, "recovery_code must be 1–128 characters") }
            return code
        }
    }
}

/// The body of `PATCH /v1/devices/{id}`: the fields a device may change.
struct DeviceUpdate: Decodable, Sendable {
    var apnsToken: String?
    var apnsEnvironment: PushEnvironment?
    var appVersion: String?
    var pushToStartToken: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case apnsToken = "apns_token"
        case apnsEnvironment = "apns_environment"
        case appVersion = "app_version"
        case pushToStartToken = "push_to_start_token"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "device update")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        apnsToken = try c.decodeIfPresent(String.self, forKey: .apnsToken).map { try DeviceFields.apnsToken($0, field: "apns_token") }
        apnsEnvironment = try c.decodeIfPresent(PushEnvironment.self, forKey: .apnsEnvironment)
        appVersion = try c.decodeIfPresent(String.self, forKey: .appVersion).map { try DeviceFields.short($0, field: "app_version") }
        pushToStartToken = try c.decodeIfPresent(String.self,
                                                 forKey: .pushToStartToken).map { try DeviceFields.apnsToken($0,
                                                     field: "push_to_start_token") }
    }
}

/// The body of `POST /v1/devices/{id}/live-activity-tokens`.
struct LiveActivityTokenRegistration: Decodable, Sendable {
    var activityID: String
    var token: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case activityID = "activity_id"
        case token
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "live activity token")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        activityID = try c.decode(String.self, forKey: .activityID)
        guard ActivityInfo.isValidID(activityID) else { throw ProtocolError(.malformed,
                                                                            "activity_id has characters outside A-Z a-z 0-9 - _ .") }
        token = try DeviceFields.apnsToken(c.decode(String.self, forKey: .token), field: "token")
    }
}

/// Validation of device fields shared by the bodies above.
enum DeviceFields {
    static func key(_ text: String, field: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(text),
              bytes.count == 65 else { throw ProtocolError(.malformed, "\(field) must be b64u of a 65-byte X9.63 point") }
        return bytes
    }

    /// APNs tokens are hex strings (32 bytes today; Apple allows longer).
    static func apnsToken(_ text: String, field: String) throws -> String {
        let t = text.lowercased()
        guard (32...200).contains(t.utf8.count), t.utf8.count % 2 == 0,
              t.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            throw ProtocolError(.malformed, "\(field) must be 32–200 hexadecimal characters")
        }
        return t
    }

    static func bundleID(_ text: String) throws -> String {
        guard (1...155).contains(text.utf8.count),
              text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
                  || $0 == 0x2E }) else {
            throw ProtocolError(.malformed, "bundle_id must be a reverse-DNS identifier")
        }
        return text
    }

    static func short(_ text: String, field: String) throws -> String {
        guard (1...64).contains(text.utf8.count), !text.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            throw ProtocolError(.malformed, "\(field) must be 1–64 printable characters")
        }
        return text
    }
}
