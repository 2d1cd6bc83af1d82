/// What the outpost knows about one watched folder: the UIDVALIDITY and the
/// highest UID already handled (so nothing is missed or repeated across
/// reconnects and restarts), and how its watcher is doing (for `status`).
public struct FolderState: Sendable, Equatable {
    public var mailboxID: Int64
    public var folder: String
    /// nil until the first successful EXAMINE.
    public var uidValidity: UInt32?
    /// Highest UID handled; messages above it are new.
    public var lastUID: UInt32?
    public var watchState: WatchState
    public var lastError: String?
    /// When `watchState` last changed (Unix seconds).
    public var stateSince: Int64
    /// When the server last proved the folder's connection alive (a response
    /// of any kind; Unix seconds, written at most every few seconds); nil
    /// until first watched.
    public var lastConfirmedAt: Int64? = nil
    /// HIGHESTMODSEQ seen at the last catch-up (CONDSTORE servers).
    public var highestModSeq: UInt64? = nil
    /// When the folder was last known in sync: every message up to `lastUID` handled (Unix seconds).
    public var syncedAt: Int64? = nil

    /// What a folder's watcher is doing.
    public enum WatchState: String, Sendable, Equatable {
        case starting
        case connecting
        /// Connected, waiting in IDLE.
        case idle
        /// Connected, checking every poll interval (no IDLE, or beyond the connection limit).
        case polling
        /// The server refused the credentials; retried with a long back-off.
        case authenticationFailed = "authentication-failed"
        /// Disconnected after an error; reconnecting with back-off.
        case retrying
        case stopped
    }
}
