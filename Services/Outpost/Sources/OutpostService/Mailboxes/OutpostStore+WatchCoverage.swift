import MailwakeSQLite

extension OutpostStore {
    /// Gaps kept per folder (the oldest are dropped).
    static let keptWatchGaps = 20

    /// Records that the server proved the folder's connection alive at `at`.
    func confirmWatched(mailboxID: Int64, folder: String, at: Int64) async throws {
        _ = try await database.execute("""
            INSERT INTO folder_state (mailbox_id, folder, last_confirmed_at, state_since, updated_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (mailbox_id, folder) DO UPDATE SET
                last_confirmed_at = MAX(COALESCE(folder_state.last_confirmed_at, 0), excluded.last_confirmed_at)
            """, mailboxID, folder, at, at, at)
    }

    /// Records the HIGHESTMODSEQ a catch-up has dealt with.
    func setHighestModSeq(mailboxID: Int64, folder: String, _ value: UInt64?) async throws {
        _ = try await database.execute("UPDATE folder_state SET highest_modseq = ? WHERE mailbox_id = ? AND folder = ?",
                                       value.map { Int64(bitPattern: $0) }, mailboxID, folder)
    }

    /// Opens a gap starting at `startedAt` unless one is open already; keeps
    /// the newest `keptWatchGaps` of the folder.
    func openWatchGap(mailboxID: Int64, folder: String, startedAt: Int64, reason: String) async throws {
        try await database.transaction { c in
            guard try c.queryRow("SELECT id FROM folder_watch_gaps WHERE mailbox_id = ? AND folder = ? AND ended_at IS NULL", mailboxID,
                                 folder) == nil
            else { return }
            _ = try c.execute("INSERT INTO folder_watch_gaps (mailbox_id, folder, started_at, reason) VALUES (?, ?, ?, ?)",
                              mailboxID, folder, startedAt, reason)
            _ = try c.execute("""
                DELETE FROM folder_watch_gaps WHERE mailbox_id = ? AND folder = ? AND id NOT IN (
                    SELECT id FROM folder_watch_gaps WHERE mailbox_id = ? AND folder = ? ORDER BY id DESC LIMIT ?)
                """, mailboxID, folder, mailboxID, folder, Int64(Self.keptWatchGaps))
        }
    }

    /// Ends the folder's open gap at `endedAt`; returns it, nil when none was open.
    func closeWatchGap(mailboxID: Int64, folder: String, endedAt: Int64) async throws -> FolderWatchGap? {
        try await database.transaction { c in
            guard let row = try c.queryRow("SELECT * FROM folder_watch_gaps WHERE mailbox_id = ? AND folder = ? AND ended_at IS NULL",
                                           mailboxID, folder) else { return nil }
            var gap = try Self.watchGap(row)
            gap.endedAt = max(endedAt, gap.startedAt)
            _ = try c.execute("UPDATE folder_watch_gaps SET ended_at = ? WHERE id = ?", gap.endedAt, try row.get("id", as: Int64.self))
            return gap
        }
    }

    /// The folder's kept gaps, newest first (an open one first of all).
    public func watchGaps(mailboxID: Int64, folder: String) async throws -> [FolderWatchGap] {
        try await database.query("SELECT * FROM folder_watch_gaps WHERE mailbox_id = ? AND folder = ? ORDER BY id DESC", mailboxID, folder)
            .map(Self.watchGap)
    }

    private static func watchGap(_ row: SQLiteRow) throws -> FolderWatchGap {
        FolderWatchGap(mailboxID: try row.get("mailbox_id"), folder: try row.get("folder"), startedAt: try row.get("started_at"),
                       endedAt: try row.get("ended_at", as: Int64?.self), reason: try row.get("reason"))
    }
}
