import MailwakeCrypto
import MailwakeSQLite

extension OutpostStore {
    /// How long a notified message's Message-ID hash is kept (seconds): a
    /// UIDVALIDITY change later than this can repeat a notification.
    static let notifiedMessageRetention: Int64 = 30 * 86_400

    /// Records that `folder` is in sync now: every message up to its position was handled.
    func markSynced(mailboxID: Int64, folder: String) async throws {
        let now = clock()
        _ = try await database.execute("UPDATE folder_state SET synced_at = ? WHERE mailbox_id = ? AND folder = ?", now, mailboxID, folder)
    }

    /// The keyed hash of a Message-ID (HMAC-SHA256 under a key derived from
    /// `secret.key`): equal Message-IDs match, the database never holds one.
    func messageIDDigest(_ messageID: String) throws -> [UInt8] {
        HMACSHA256.authenticationCode(for: Array(messageID.utf8), using: try box.secret.sealingKey(purpose: "message-id"))
    }

    /// Whether a message with this Message-ID digest was notified for the mailbox (within the retention).
    func wasNotified(mailboxID: Int64, digest: [UInt8]) async throws -> Bool {
        try await database.queryValue("SELECT 1 FROM notified_message_ids WHERE mailbox_id = ? AND digest = ? AND notified_at >= ?",
                                      mailboxID, digest, clock() - Self.notifiedMessageRetention, as: Int64.self) != nil
    }

    /// Remembers a notified message's digest and forgets those past the retention (in the notification's transaction).
    static func rememberNotified(_ c: SQLiteConnection, mailboxID: Int64, digest: [UInt8], now: Int64) throws {
        _ = try c.execute("""
            INSERT INTO notified_message_ids (mailbox_id, digest, notified_at) VALUES (?, ?, ?)
            ON CONFLICT (mailbox_id, digest) DO UPDATE SET notified_at = excluded.notified_at
            """, mailboxID, digest, now)
        _ = try c.execute("DELETE FROM notified_message_ids WHERE notified_at < ?", now - notifiedMessageRetention)
    }
}
