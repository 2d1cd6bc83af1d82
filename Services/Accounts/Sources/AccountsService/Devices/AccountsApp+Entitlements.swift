import MailwakePostgres

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
                SELECT expires_at FROM app_store_transactions
                WHERE device_id = \(device.deviceID) AND revoked_at IS NULL AND product_id = ANY(\(array: Array(configuration.pushProductIDs)))
                  AND (expires_at IS NULL OR expires_at > \(now))
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
