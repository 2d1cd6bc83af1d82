/// A period a folder was not watched: from the last server response that
/// proved its connection alive until the catch-up after the reconnect.
public struct FolderWatchGap: Sendable, Equatable {
    public var mailboxID: Int64
    public var folder: String
    /// The last confirmation before the connection was lost (Unix seconds).
    public var startedAt: Int64
    /// When the reconnected watcher had caught up (Unix seconds); nil while the folder is still not watched.
    public var endedAt: Int64?
    /// Why: the error code of the lost connection (`timed-out`, `closed`, `connect`…) or `outpost-stopped`.
    public var reason: String

    /// Seconds not watched (until `now` for an open gap).
    public func seconds(now: Int64) -> Int64 { max(0, (endedAt ?? now) - startedAt) }
}
