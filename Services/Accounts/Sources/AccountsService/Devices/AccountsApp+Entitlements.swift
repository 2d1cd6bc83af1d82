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
            for expires in try await entitlementStore.purchaseExpiries(deviceID: device.deviceID,
                                                                       productIDs: Array(configuration.pushProductIDs), now: now) {
                source = "purchase"
                if let expires { until = max(until ?? expires, expires) } else { lifetime = true }
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
        let now = clock()
        return try await entitlementStore.device(id, productIDs: Array(configuration.pushProductIDs),
                                                 now: now).map { authorization($0, now: now) }
    }

    /// The devices among `ids` that exist, each with its entitlement, in one
    /// query (the relay batches concurrent cache misses into one call).
    func authorizations(of ids: [String]) async throws -> [DeviceAuthorization] {
        let now = clock()
        return try await entitlementStore.devices(ids, productIDs: Array(configuration.pushProductIDs),
                                                  now: now).map { authorization($0, now: now) }
    }

    /// The device's authorization: a purchase entitles it, else the trial after registration.
    private func authorization(_ found: EntitlementStore.PurchasedDevice, now: Int64) -> DeviceAuthorization {
        let device = found.device
        var entitled = false
        var until: Int64?
        if let purchasedUntil = found.purchasedUntil {
            entitled = true
            until = purchasedUntil == Int64.max ? nil : purchasedUntil
        } else if configuration.trialSeconds > 0, device.createdAt + configuration.trialSeconds > now {
            entitled = true
            until = device.createdAt + configuration.trialSeconds
        }
        return DeviceAuthorization(
            deviceID: device.deviceID, active: device.isActive, entitled: entitled, entitledUntil: until,
            apnsToken: device.apnsToken.isEmpty ? nil : device.apnsToken,
            apnsEnvironment: PushEnvironment(rawValue: device.apnsEnvironment) ?? .production, bundleID: device.bundleID,
            pushToStartToken: device.pushToStartToken, signingKey: Base64URL.encode(device.signingKey),
            agreementKey: Base64URL.encode(device.agreementKey))
    }

    func diagnostics(of deviceID: String) async throws -> DiagnosticList {
        let since = clock() - configuration.diagnosticsRetentionSeconds
        return DiagnosticList(deviceID: deviceID, records: try await diagnosticsStore.recent(deviceID: deviceID, since: since))
    }
}
