import MailwakePostgres

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

    /// The purchases among `originals`, each with its linked devices (oldest link first).
    static func load(_ originals: [String], from database: PostgresClient, limit: Int) async throws -> [PurchaseSharing] {
        guard !originals.isEmpty else { return [] }
        var b = PostgresBindings()
        b.append(PostgresArray(originals))
        let rows = try await database.query(PostgresQuery(unsafeSQL: """
            SELECT t.original_transaction_id, t.product_id, t.expires_at, t.revoked_at, l.device_id, l.linked_at, d.blocked_at IS NOT NULL
            FROM app_store_transactions t
              LEFT JOIN purchase_links l ON l.original_transaction_id = t.original_transaction_id
              LEFT JOIN devices d ON d.device_id = l.device_id
            WHERE t.original_transaction_id = ANY($1)
            ORDER BY t.original_transaction_id, l.linked_at, l.device_id
            """, bindings: b))
        var purchases: [PurchaseSharing] = []
        for row in rows {
            let (original, product, expires, revoked, device, linked,
                 blocked) = try row.decode((String, String, Int64?, Int64?, String?, Int64?, Bool?).self)
            if purchases.last?.originalTransactionID != original {
                purchases.append(PurchaseSharing(originalTransactionID: original, productID: product, expiresAt: expires,
                                                 revokedAt: revoked,
                                                 deviceLimit: limit, devices: []))
            }
            if let device, let linked {
                purchases[purchases.count - 1].devices.append(LinkedDevice(deviceID: device, linkedAt: linked, blocked: blocked ?? false))
            }
        }
        return purchases
    }
}
