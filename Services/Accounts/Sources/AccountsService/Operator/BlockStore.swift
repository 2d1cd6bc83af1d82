import MailwakePostgres

/// The operator's blocks of devices and outposts (`blocked_at`, `block_reason`).
struct BlockStore: Sendable {
    let database: PostgresClient

    /// What the operator blocks: its table, named as in the operator API's paths.
    enum Target: String, Sendable, CaseIterable {
        case devices, outposts

        var idColumn: String { self == .devices ? "device_id" : "outpost_id" }
    }

    /// Blocks the row (keeping the time of an earlier block) with `reason`; false when there is no such row.
    func block(_ target: Target, id: String, reason: String, now: Int64) async throws -> Bool {
        try await database.execute("""
            UPDATE \(identifier: target.rawValue) SET blocked_at = COALESCE(blocked_at, \(now)), block_reason = \(reason)
                WHERE \(identifier: target.idColumn) = \(id)
            """) == 1
    }

    /// Lifts the row's block; false when there is no such row.
    func unblock(_ target: Target, id: String) async throws -> Bool {
        try await database.execute("""
            UPDATE \(identifier: target.rawValue) SET blocked_at = NULL, block_reason = NULL WHERE \(identifier: target.idColumn) = \(id)
            """) == 1
    }
}
