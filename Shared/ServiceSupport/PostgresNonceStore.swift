public import MailwakePostgres
public import MailwakeProtocol
import Synchronization

/// The replay store of signed requests (PROTOCOL.md §8) in PostgreSQL, shared
/// by every instance of a service.
///
/// A nonce is recorded with its expiry; the primary key makes a second use
/// fail atomically. Expired rows are deleted now and then by `prune`.
public final class PostgresNonceStore: NonceStore {
    /// The table this store needs; services add it to their migrations.
    public static let migrationSQL = """
        CREATE TABLE request_nonces (
            key_id text NOT NULL,
            nonce bytea NOT NULL,
            expires_at bigint NOT NULL,
            PRIMARY KEY (key_id, nonce)
        );
        CREATE INDEX request_nonces_expiry ON request_nonces (expires_at);
        """

    let database: PostgresClient
    /// Inserts since the last prune; every `pruneInterval`-th insert prunes.
    private let inserts = Atomic<Int64>(0)
    static let pruneInterval: Int64 = 1024

    public init(database: PostgresClient) { self.database = database }

    public func insertIfAbsent(keyID: String, nonce: [UInt8], expiresAt: Int64, now: Int64) async throws -> Bool {
        // An expired row with the same key may linger until pruned: replace it.
        let rows = try await database.query("""
            INSERT INTO request_nonces (key_id, nonce, expires_at) VALUES (\(keyID), \(nonce), \(expiresAt))
            ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at
            WHERE request_nonces.expires_at <= \(now)
            RETURNING 1
            """)
        if inserts.add(1, ordering: .relaxed).newValue % Self.pruneInterval == 0 { try await prune(now: now) }
        return rows.count == 1
    }

    /// Deletes expired nonces; returns how many.
    @discardableResult
    public func prune(now: Int64) async throws -> Int {
        try await database.execute("DELETE FROM request_nonces WHERE expires_at <= \(now)")
    }
}
