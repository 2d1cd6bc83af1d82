import MailwakePostgres

/// Reads what entitles devices to native push: their linked, unexpired, unrevoked App Store transactions.
struct EntitlementStore: Sendable {
    let database: PostgresClient

    /// A device with the end of its purchased entitlement.
    struct PurchasedDevice: Sendable {
        var device: DeviceRecord
        /// The latest expiry of its live push purchases: `Int64.max` for one without end; nil when it has none.
        var purchasedUntil: Int64?
    }

    /// The expiries of the device's live purchases of `productIDs` (nil: no end).
    func purchaseExpiries(deviceID: String, productIDs: [String], now: Int64) async throws -> [Int64?] {
        try await database.query("""
            SELECT t.expires_at FROM purchase_links l JOIN app_store_transactions t USING (original_transaction_id)
            WHERE l.device_id = \(deviceID) AND t.revoked_at IS NULL AND t.product_id = ANY(\(array: productIDs))
              AND (t.expires_at IS NULL OR t.expires_at > \(now))
            """).map { try $0.decode(Int64?.self, at: 0) }
    }

    /// The device `id`, if it exists, with its purchased entitlement (the relay's hot path: one round trip).
    func device(_ id: String, productIDs: [String], now: Int64) async throws -> PurchasedDevice? {
        try await devices(matching: "device_id = $1", id, productIDs: productIDs, now: now).first
    }

    /// The devices among `ids` that exist, each with its purchased entitlement, in one query.
    func devices(_ ids: [String], productIDs: [String], now: Int64) async throws -> [PurchasedDevice] {
        try await devices(matching: "device_id = ANY($1)", PostgresArray(ids), productIDs: productIDs, now: now)
    }

    /// Devices whose row matches `condition` on `$1`, each with its purchased entitlement.
    private func devices(matching condition: String, _ parameter: some PostgresEncodable, productIDs: [String],
                         now: Int64) async throws -> [PurchasedDevice] {
        var bindings = PostgresBindings()
        bindings.append(parameter)
        bindings.append(PostgresArray(productIDs))
        bindings.append(now)
        let rows = try await database.query(PostgresQuery(unsafeSQL: """
            SELECT \(DeviceRecord.columns),
              (SELECT max(COALESCE(t.expires_at, 9223372036854775807)) FROM purchase_links l
                  JOIN app_store_transactions t USING (original_transaction_id)
               WHERE l.device_id = devices.device_id AND t.revoked_at IS NULL AND t.product_id = ANY($2)
                 AND (t.expires_at IS NULL OR t.expires_at > $3))
            FROM devices WHERE \(condition)
            """, bindings: bindings))
        return try rows.map { row in PurchasedDevice(device: try DeviceRecord(row: row),
                                                     purchasedUntil: try row.decode(Int64?.self, at: 12)) }
    }
}
