import MailwakePostgres

/// A device row.
struct DeviceRecord: Sendable {
    var deviceID: String
    var signingKey: [UInt8]
    var agreementKey: [UInt8]
    var apnsToken: String
    var apnsEnvironment: String
    var apnsTokenUpdatedAt: Int64
    var bundleID: String
    var appVersion: String
    var pushToStartToken: String?
    var createdAt: Int64
    var deletedAt: Int64?
    var blockedAt: Int64?

    static let columns = "device_id, signing_key, agreement_key, apns_token, apns_environment, apns_token_updated_at, bundle_id, app_version, push_to_start_token, created_at, deleted_at, blocked_at"

    init(row: PostgresRow) throws {
        (deviceID, signingKey, agreementKey, apnsToken, apnsEnvironment, apnsTokenUpdatedAt, bundleID, appVersion, pushToStartToken, createdAt, deletedAt, blockedAt) =
            try row.decode((String, [UInt8], [UInt8], String, String, Int64, String, String, String?, Int64, Int64?, Int64?).self)
    }

    /// Registered, not deleted, not blocked, with an APNs token.
    var isActive: Bool { deletedAt == nil && blockedAt == nil && !apnsToken.isEmpty }
}
