/// How a transaction takes its locks.
public enum SQLiteTransactionKind: String, Sendable {
    /// Takes locks on first use. A read that later writes can fail with
    /// SQLITE_BUSY_SNAPSHOT without waiting in WAL mode: use only for reads.
    case deferred = "DEFERRED"
    /// Takes the write lock at BEGIN, waiting up to the busy timeout. The default.
    case immediate = "IMMEDIATE"
    /// Like `immediate` (in WAL mode the two are the same).
    case exclusive = "EXCLUSIVE"
}
