import Foundation
import MailwakeAppStore
import MailwakePostgres

/// App Store transactions, their links to devices and the notifications Apple sent (`app_store_*`, `purchase_links`).
struct PurchaseStore: Sendable {
    let database: PostgresClient

    /// What linking a transaction to a device came to.
    enum LinkOutcome: Sendable {
        /// Linked now, or linked before.
        case linked
        /// Bought on another device, which has not linked it itself: nothing stored.
        case buyerHasNotLinked
        /// The purchase entitles its device limit already: nothing stored.
        case deviceLimitReached
    }

    /// A refused link, thrown inside the transaction so that it rolls back.
    private struct Refused: Error {
        var outcome: LinkOutcome
    }

    /// Stores the verified transaction and links it to the device, in one transaction.
    ///
    /// - Parameter buyerToken: when the App bought it on another device, that device's `appAccountToken`:
    ///   then it is shared (Family Sharing, the same Apple ID) only once a device with that token linked it.
    func link(_ transaction: AppStoreTransaction, deviceID: String, buyerToken: UUID?, deviceLimit: Int,
              now: Int64) async throws -> LinkOutcome {
        do {
            try await database.withTransaction { tx in
                try await Self.save(transaction, on: tx, now: now)
                try await Self.link(transaction.originalTransactionId, deviceID: deviceID, buyerToken: buyerToken,
                                    deviceLimit: deviceLimit, now: now, on: tx)
            }
            return .linked
        } catch let refused as Refused {
            return refused.outcome
        }
    }

    private static func link(_ original: String, deviceID: String, buyerToken: UUID?, deviceLimit: Int, now: Int64,
                             on tx: PostgresConnection) async throws {
        // One link decision at a time per purchase: the row lock serializes devices racing for the last place.
        try await tx.execute("SELECT 1 FROM app_store_transactions WHERE original_transaction_id = \(original) FOR UPDATE")
        let linked = try await tx.query("""
            SELECT 1 FROM purchase_links WHERE original_transaction_id = \(original) AND device_id = \(deviceID)
            """)
        guard linked.count == 0 else { return }
        let others = try await tx.query("""
            SELECT l.device_id FROM purchase_links l JOIN devices d USING (device_id)
            WHERE l.original_transaction_id = \(original) AND d.deleted_at IS NULL
            """).map { try $0.decode(String.self, at: 0) }
        if let buyerToken, !others.contains(where: { AppAccountToken.of(deviceID: $0) == buyerToken }) {
            throw Refused(outcome: .buyerHasNotLinked)
        }
        guard others.count < deviceLimit else { throw Refused(outcome: .deviceLimitReached) }
        try await tx.execute("""
            INSERT INTO purchase_links (original_transaction_id, device_id, linked_at) VALUES (\(original), \(deviceID), \(now))
            """)
    }

    /// Records an App Store Server Notification and the transaction it carries, in one transaction;
    /// false when the notification was recorded before (nothing changes).
    func record(_ notification: AppStoreNotification, transaction: AppStoreTransaction?, now: Int64) async throws -> Bool {
        try await database.withTransaction { tx -> Bool in
            let inserted = try await tx.query("""
                INSERT INTO app_store_notifications (notification_uuid, notification_type, subtype, received_at)
                VALUES (\(notification.notificationUUID), \(notification.notificationType.rawValue), \(notification.subtype?.rawValue),
                    \(now))
                ON CONFLICT (notification_uuid) DO NOTHING RETURNING 1
                """)
            guard inserted.count == 1 else { return false }
            if let transaction { try await Self.save(transaction, on: tx, now: now) }
            return true
        }
    }

    /// Upserts a verified transaction, never letting an older signed state overwrite a newer one.
    private static func save(_ t: AppStoreTransaction, on tx: PostgresConnection, now: Int64) async throws {
        try await tx.execute("""
            INSERT INTO app_store_transactions (original_transaction_id, last_transaction_id, product_id, environment, purchased_at,
                expires_at,
                                                revoked_at, signed_at_ms, updated_at)
            VALUES (\(t.originalTransactionId), \(t.transactionId), \(t.productId), \(t.environment.rawValue),
                \(t.purchaseDate.secondsSince1970),
                    \(t.expiresDate?.secondsSince1970), \(t.revocationDate?.secondsSince1970), \(t.signedDate.millisecondsSince1970),
                        \(now))
            ON CONFLICT (original_transaction_id) DO UPDATE SET
              last_transaction_id = EXCLUDED.last_transaction_id, product_id = EXCLUDED.product_id, environment = EXCLUDED.environment,
              purchased_at = EXCLUDED.purchased_at, expires_at = EXCLUDED.expires_at, revoked_at = EXCLUDED.revoked_at,
              signed_at_ms = EXCLUDED.signed_at_ms, updated_at = EXCLUDED.updated_at
            WHERE app_store_transactions.signed_at_ms <= EXCLUDED.signed_at_ms
            """)
    }

    /// The original transaction ids linked to the device.
    func linkedOriginals(of deviceID: String) async throws -> [String] {
        try await database.query("""
            SELECT original_transaction_id FROM purchase_links WHERE device_id = \(deviceID)
            """).map { try $0.decode(String.self, at: 0) }
    }

    /// The purchases among `originals`, each with its linked devices (oldest link first).
    func sharing(_ originals: [String], deviceLimit: Int) async throws -> [PurchaseSharing] {
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
                                                 deviceLimit: deviceLimit, devices: []))
            }
            if let device, let linked {
                purchases[purchases.count - 1].devices.append(PurchaseSharing.LinkedDevice(deviceID: device, linkedAt: linked,
                                                                                           blocked: blocked ?? false))
            }
        }
        return purchases
    }
}
