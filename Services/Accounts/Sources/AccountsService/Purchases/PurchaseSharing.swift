/// One App Store purchase and the devices it entitles (the device's and the operator's view).
struct PurchaseSharing: Encodable, Sendable {
    /// One device linked to the purchase.
    struct LinkedDevice: Encodable, Sendable {
        var deviceID: String
        var linkedAt: Int64
        var blocked: Bool
        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case linkedAt = "linked_at"
            case blocked
        }
    }

    var originalTransactionID: String
    var productID: String
    var expiresAt: Int64?
    var revokedAt: Int64?
    var deviceLimit: Int
    var devices: [LinkedDevice]

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case expiresAt = "expires_at"
        case revokedAt = "revoked_at"
        case deviceLimit = "device_limit"
        case devices
    }
}
