import MailwakeProtocol
import MailwakeSQLite

/// The replay store of the outpost's HTTPS API (PROTOCOL.md §8), in its
/// database so that a restart inside the window cannot replay a request.
struct OutpostNonceStore: NonceStore {
    let database: SQLiteDatabase

    func insertIfAbsent(keyID: String, nonce: [UInt8], expiresAt: Int64, now: Int64) async throws -> Bool {
        try await database.transaction { c in
            _ = try c.execute("DELETE FROM request_nonces WHERE expires_at < ?", now)
            return try c.execute("INSERT OR IGNORE INTO request_nonces (key_id, nonce, expires_at) VALUES (?, ?, ?)", keyID, nonce,
                                 expiresAt) == 1
        }
    }
}
