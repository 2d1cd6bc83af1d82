import MailwakePostgres
import MailwakeProtocol

extension AccountsApp {
    /// The native-push entitlement: an unexpired, unrevoked transaction for a
    /// push product linked to the device, or the trial after registration.
    func entitlement(of device: DeviceRecord) async throws -> Entitlement {
        let now = clock()
        var until: Int64?
        var source: String?
        var lifetime = false
        if !configuration.pushProductIDs.isEmpty {
            let rows = try await database.query("""
                SELECT t.expires_at FROM purchase_links l JOIN app_store_transactions t USING (original_transaction_id)
                WHERE l.device_id = \(device.deviceID) AND t.revoked_at IS NULL AND t.product_id = ANY(\(array: Array(configuration.pushProductIDs)))
                  AND (t.expires_at IS NULL OR t.expires_at > \(now))
                """)
            for row in rows {
                source = "purchase"
                if let expires = try row.decode(Int64?.self, at: 0) { until = max(until ?? expires, expires) } else { lifetime = true }
            }
        }
        let trialEnd = device.createdAt + configuration.trialSeconds
        if configuration.trialSeconds > 0, trialEnd > now, source == nil {
            source = "trial"
            until = trialEnd
        }
        let entitled = source != nil
        return Entitlement(deviceID: device.deviceID, entitled: entitled, entitledUntil: lifetime ? nil : until, source: source)
    }

    /// The device and its entitlement in one round trip (the relay's hot path).
    func authorization(of id: String) async throws -> DeviceAuthorization? {
        try await authorizations(matching: "device_id = $1", id).first
    }

    /// The devices among `ids` that exist, each with its entitlement, in one
    /// query (the relay batches concurrent cache misses into one call).
    func authorizations(of ids: [String]) async throws -> [DeviceAuthorization] {
        try await authorizations(matching: "device_id = ANY($1)", PostgresArray(ids))
    }

    /// Devices whose row matches `condition` on `$1`, each with its entitlement.
    private func authorizations(matching condition: String, _ parameter: some PostgresEncodable) async throws -> [DeviceAuthorization] {
        let now = clock()
        var bindings = PostgresBindings()
        bindings.append(parameter)
        bindings.append(PostgresArray(Array(configuration.pushProductIDs)))
        bindings.append(now)
        let rows = try await database.query(PostgresQuery(unsafeSQL: """
            SELECT \(DeviceRecord.columns),
              (SELECT max(COALESCE(t.expires_at, 9223372036854775807)) FROM purchase_links l JOIN app_store_transactions t USING (original_transaction_id)
               WHERE l.device_id = devices.device_id AND t.revoked_at IS NULL AND t.product_id = ANY($2)
                 AND (t.expires_at IS NULL OR t.expires_at > $3))
            FROM devices WHERE \(condition)
            """, bindings: bindings))
        return try rows.map { row in
            let device = try DeviceRecord(row: row)
            let purchasedUntil = try row.decode(Int64?.self, at: 12)
            var entitled = false
            var until: Int64?
            if let purchasedUntil {
                entitled = true
                until = purchasedUntil == Int64.max ? nil : purchasedUntil
            } else if configuration.trialSeconds > 0, device.createdAt + configuration.trialSeconds > now {
                entitled = true
                until = device.createdAt + configuration.trialSeconds
            }
            return DeviceAuthorization(
                deviceID: device.deviceID, active: device.isActive, entitled: entitled, entitledUntil: until,
                apnsToken: device.apnsToken.isEmpty ? nil : device.apnsToken, apnsEnvironment: PushEnvironment(rawValue: device.apnsEnvironment) ?? .production, bundleID: device.bundleID,
                pushToStartToken: device.pushToStartToken, signingKey: Base64URL.encode(device.signingKey), agreementKey: Base64URL.encode(device.agreementKey))
        }
    }

    func diagnostics(of deviceID: String) async throws -> DiagnosticList {
        let since = clock() - configuration.diagnosticsRetentionSeconds
        let rows = try await database.query("""
            SELECT pairing_id, event_id, status, apns_reason, occurred_at FROM delivery_diagnostics
            WHERE device_id = \(deviceID) AND occurred_at >= \(since) ORDER BY occurred_at DESC LIMIT 200
            """)
        let records = try rows.map { row in
            let (pairing, event, status, reason, at) = try row.decode((String, String, String, String?, Int64).self)
            return DiagnosticRecord(deviceID: deviceID, pairingID: pairing, eventID: event, status: status, apnsReason: reason, occurredAt: at)
        }
        return DiagnosticList(deviceID: deviceID, records: records)
    }
}
