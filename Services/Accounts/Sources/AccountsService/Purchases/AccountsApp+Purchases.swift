import MailwakeAppStore
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres
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
        router.post("/v1/purchases") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let verifier = try appStoreVerifier()
            let submission = try request.decodeJSON(PurchaseSubmission.self)
            let transaction = try verifier.verifyTransaction(submission.signedTransaction)
            let boughtElsewhere = transaction.appAccountToken.map { $0 != AppAccountToken.of(deviceID: device.deviceID) } ?? false
            let now = clock()
            let limit = configuration.purchaseDeviceLimit
            try await database.withTransaction { tx in
                try await store(transaction, in: tx, now: now)
                // One link decision at a time per purchase: the row lock serializes devices racing for the last place.
                try await tx.execute("SELECT 1 FROM app_store_transactions WHERE original_transaction_id = \(transaction.originalTransactionId) FOR UPDATE")
                let linked = try await tx.query("""
                    SELECT 1 FROM purchase_links WHERE original_transaction_id = \(transaction.originalTransactionId) AND device_id = \(device.deviceID)
                    """)
                guard linked.count == 0 else { return }
                // Bought by the App on another device (docs/app-store.md): shared (Family Sharing, the same Apple ID)
                // only once the buying device, the one the token names, has linked it itself.
                if boughtElsewhere, let token = transaction.appAccountToken {
                    let sharing = try await tx.query("""
                        SELECT l.device_id FROM purchase_links l JOIN devices d USING (device_id)
                        WHERE l.original_transaction_id = \(transaction.originalTransactionId) AND d.deleted_at IS NULL
                        """).map { try $0.decode(String.self, at: 0) }
                    guard sharing.contains(where: { AppAccountToken.of(deviceID: $0) == token }) else {
                        throw HTTPError(.forbidden, code: "app-account-token-mismatch",
                                        detail: "this transaction was bought on another device, which has not linked it: link it there first; nothing was linked here")
                    }
                }
                let others = try await tx.query("""
                    SELECT count(*)::bigint FROM purchase_links l JOIN devices d USING (device_id)
                    WHERE l.original_transaction_id = \(transaction.originalTransactionId) AND d.deleted_at IS NULL
                    """).single().decode(Int64.self, at: 0)
                guard others < Int64(limit) else {
                    throw HTTPError(.conflict, code: "purchase-device-limit",
                                    detail: "this purchase entitles \(limit) devices already, the most this service allows; delete one of them to free its place")
                }
                try await tx.execute("""
                    INSERT INTO purchase_links (original_transaction_id, device_id, linked_at) VALUES (\(transaction.originalTransactionId), \(device.deviceID), \(now))
                    """)
            }
            context.logger.info("purchase linked", ["device_id": .string(device.deviceID), "product_id": .string(transaction.productId)])
            return try .json(try await entitlement(of: device))
        }
        router.get("/v1/devices/{id}/purchases") { [self] request, context in
            let device = try await authenticateDevice(request, context)
            let originals = try await database.query("""
                SELECT original_transaction_id FROM purchase_links WHERE device_id = \(device.deviceID)
                """).map { try $0.decode(String.self, at: 0) }
            let purchases = try await PurchaseSharing.load(originals, from: database, limit: configuration.purchaseDeviceLimit)
            return try .json(DevicePurchases(deviceID: device.deviceID, purchases: purchases))
        }
        router.post("/v1/app-store/notifications") { [self] request, context in
            let verifier = try appStoreVerifier()
            let envelope = try request.decodeJSON(NotificationEnvelope.self, maxBytes: 256 * 1024)
            let notification = try verifier.verifyNotification(envelope.signedPayload)
            let now = clock()
            let fresh = try await database.withTransaction { tx -> Bool in
                let inserted = try await tx.query("""
                    INSERT INTO app_store_notifications (notification_uuid, notification_type, subtype, received_at)
                    VALUES (\(notification.notificationUUID), \(notification.notificationType.rawValue), \(notification.subtype?.rawValue), \(now))
                    ON CONFLICT (notification_uuid) DO NOTHING RETURNING 1
                    """)
                guard inserted.count == 1 else { return false }
                if var transaction = notification.data.transaction {
                    if [AppStoreNotificationType.refund.rawValue, "REVOKE"].contains(notification.notificationType.rawValue), transaction.revocationDate == nil {
                        transaction.revocationDate = notification.signedDate
                    }
                    try await store(transaction, in: tx, now: now)
                }
                return true
            }
            context.logger.info("app store notification", ["type": .string(notification.notificationType.rawValue),
                                                            "subtype": .string(notification.subtype?.rawValue ?? ""), "replayed": .bool(!fresh)])
            return .json(bytes: Array(#"{"status":"ok"}"#.utf8))
        }
    }

    func appStoreVerifier() throws -> AppStoreJWSVerifier {
        guard let appStore else {
            throw HTTPError(.notFound, code: "purchases-disabled", detail: "this instance does not accept App Store purchases")
        }
        return try appStore.get()
    }

    /// Upserts a verified transaction, never letting an older signed state overwrite a newer one.
    func store(_ t: AppStoreTransaction, in tx: PostgresConnection, now: Int64) async throws {
        try await tx.execute("""
            INSERT INTO app_store_transactions (original_transaction_id, last_transaction_id, product_id, environment, purchased_at, expires_at,
                                                revoked_at, signed_at_ms, updated_at)
            VALUES (\(t.originalTransactionId), \(t.transactionId), \(t.productId), \(t.environment.rawValue), \(t.purchaseDate.secondsSince1970),
                    \(t.expiresDate?.secondsSince1970), \(t.revocationDate?.secondsSince1970), \(t.signedDate.millisecondsSince1970), \(now))
            ON CONFLICT (original_transaction_id) DO UPDATE SET
              last_transaction_id = EXCLUDED.last_transaction_id, product_id = EXCLUDED.product_id, environment = EXCLUDED.environment,
              purchased_at = EXCLUDED.purchased_at, expires_at = EXCLUDED.expires_at, revoked_at = EXCLUDED.revoked_at,
              signed_at_ms = EXCLUDED.signed_at_ms, updated_at = EXCLUDED.updated_at
            WHERE app_store_transactions.signed_at_ms <= EXCLUDED.signed_at_ms
            """)
    }
}
