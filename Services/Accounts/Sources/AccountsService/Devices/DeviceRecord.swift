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

    static let columns = """
                         device_id, signing_key, agreement_key, apns_token, apns_environment, apns_token_updated_at, bundle_id, \
                         app_version, push_to_start_token, created_at, deleted_at, blocked_at
                         """

    /// Decodes the first 12 columns (`columns`); a query may add more after them.
    init(row: PostgresRow) throws {
        deviceID = try row.decode(at: 0)
        signingKey = try row.decode(at: 1)
        agreementKey = try row.decode(at: 2)
        apnsToken = try row.decode(at: 3)
        apnsEnvironment = try row.decode(at: 4)
        apnsTokenUpdatedAt = try row.decode(at: 5)
        bundleID = try row.decode(at: 6)
        appVersion = try row.decode(at: 7)
        pushToStartToken = try row.decode(at: 8)
        createdAt = try row.decode(at: 9)
        deletedAt = try row.decode(at: 10)
        blockedAt = try row.decode(at: 11)
    }

    /// Registered, not deleted, not blocked, with an APNs token.
    var isActive: Bool { deletedAt == nil && blockedAt == nil && !apnsToken.isEmpty }
}
