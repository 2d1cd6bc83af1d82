import MailwakeProtocol
import MailwakePostgres

/// The `outposts` table: outposts known by their identity key, and whether the operator blocked them.
struct OutpostStore: Sendable {
    let database: PostgresClient

    /// Records the outpost (or refreshes its last contact); returns it and whether it is new.
    func register(_ outpostID: String, key: [UInt8], now: Int64) async throws -> (OutpostSummary, created: Bool) {
        let rows = try await database.query("""
            INSERT INTO outposts (outpost_id, public_key, created_at, last_seen_at) VALUES (\(outpostID), \(key), \(now), \(now))
            ON CONFLICT (outpost_id) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at
            RETURNING created_at, blocked_at, (xmax = 0)
            """)
        let (created, blocked, inserted) = try rows.single().decode((Int64, Int64?, Bool).self)
        return (OutpostSummary(outpostID: outpostID, publicKey: Base64URL.encode(key), blocked: blocked != nil, createdAt: created),
                inserted)
    }

    /// The outpost; nil when it is unknown.
    func load(_ id: String) async throws -> OutpostSummary? {
        let rows = try await database.query("SELECT public_key, blocked_at, created_at FROM outposts WHERE outpost_id = \(id)")
        guard let row = rows.first else { return nil }
        let (key, blocked, created) = try row.decode(([UInt8], Int64?, Int64).self)
        return OutpostSummary(outpostID: id, publicKey: Base64URL.encode(key), blocked: blocked != nil, createdAt: created)
    }
}
