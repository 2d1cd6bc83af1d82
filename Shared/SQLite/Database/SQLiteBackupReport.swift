/// What an online backup did.
public struct SQLiteBackupReport: Sendable, Equatable {
    /// Pages in the copy.
    public var pageCount: Int
    /// Calls to `sqlite3_backup_step` (more than pages/step when restarted).
    public var steps: Int
}
