import MailwakeAppStore
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

/// The body of `POST /v1/purchases`.
struct PurchaseSubmission: Decodable, Sendable {
    var signedTransaction: String
    enum CodingKeys: String, CodingKey, CaseIterable { case signedTransaction = "signed_transaction" }
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "purchase")
        signedTransaction = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .signedTransaction)
    }
}

/// The body Apple posts to `POST /v1/app-store/notifications` (App Store Server Notifications V2).
struct NotificationEnvelope: Decodable, Sendable {
    var signedPayload: String
}

extension AccountsApp {
    func addPurchaseRoutes(to router: inout Router) {
        router.group(middleware: deviceAuthentication) { device in addDevicePurchaseRoutes(to: &device) }
        addAppStoreNotificationRoute(to: &router)
    }

    /// Linking a purchase and listing a device's, behind `DeviceSessionAuthentication`.
    func addDevicePurchaseRoutes(to router: inout RouterGroup) {
        router.post("/v1/purchases") { [self] request, context in
            let device = try context.authenticated(DeviceRecord.self)
            let verifier = try appStoreVerifier()
            let submission = try request.decodeJSON(PurchaseSubmission.self)
            let transaction = try verifier.verifyTransaction(submission.signedTransaction)
            let buyerToken = transaction.appAccountToken.flatMap { $0 == AppAccountToken.of(deviceID: device.deviceID) ? nil : $0 }
            let limit = configuration.purchaseDeviceLimit
            switch try await purchaseStore.link(transaction, deviceID: device.deviceID, buyerToken: buyerToken, deviceLimit: limit,
                                                now: clock()) {
            case .linked: break
            case .buyerHasNotLinked:
                throw HTTPError(.forbidden, code: .appAccountTokenMismatch,
                                detail: "this transaction was bought on another device, which has not linked it: link it there first; " +
                                        "nothing was linked here")
            case .deviceLimitReached:
                throw HTTPError(.conflict, code: .purchaseDeviceLimit,
                                detail: "this purchase entitles \(limit) devices already, the most this service allows; delete one of " +
                                        "them to free its place")
            }
            context.logger.info("purchase linked", ["device_id": .string(device.deviceID), "product_id": .string(transaction.productId)])
            return try .json(try await entitlement(of: device))
        }
        router.get("/v1/devices/{id}/purchases") { [self] request, context in
            let device = try context.authenticated(DeviceRecord.self)
            let originals = try await purchaseStore.linkedOriginals(of: device.deviceID)
            let purchases = try await purchaseStore.sharing(originals, deviceLimit: configuration.purchaseDeviceLimit)
            return try .json(DevicePurchases(deviceID: device.deviceID, purchases: purchases))
        }
    }

    /// App Store Server Notifications: signed by Apple, checked by the verifier, no caller authentication.
    func addAppStoreNotificationRoute(to router: inout Router) {
        router.post("/v1/app-store/notifications") { [self] request, context in
            let verifier = try appStoreVerifier()
            let envelope = try request.decodeJSON(NotificationEnvelope.self, maxBytes: 256 * 1024)
            let notification = try verifier.verifyNotification(envelope.signedPayload)
            var transaction = notification.data.transaction
            if [AppStoreNotificationType.refund.rawValue, "REVOKE"].contains(notification.notificationType.rawValue),
               transaction?.revocationDate == nil {
                transaction?.revocationDate = notification.signedDate
            }
            let fresh = try await purchaseStore.record(notification, transaction: transaction, now: clock())
            context.logger.info("app store notification", ["type": .string(notification.notificationType.rawValue),
                                                            "subtype": .string(notification.subtype?.rawValue ?? ""),
                                                            "replayed": .bool(!fresh)])
            return .json(bytes: Array(#"{"status":"ok"}"#.utf8))
        }
    }

    func appStoreVerifier() throws -> AppStoreJWSVerifier {
        guard let appStore else {
            throw HTTPError(.notFound, code: .purchasesDisabled, detail: "this instance does not accept App Store purchases")
        }
        return try appStore.get()
    }
}
