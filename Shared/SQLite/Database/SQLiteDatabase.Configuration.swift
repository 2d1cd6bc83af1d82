extension SQLiteDatabase {
    /// How a database is opened. The defaults are what the outpost uses.
    public struct Configuration: Sendable {
        /// `synchronous` pragma values.
        public enum Synchronous: String, Sendable {
            case off = "OFF"
            /// Durable against application crashes; with WAL, a power loss can
            /// lose the last transactions but never corrupts the database.
            case normal = "NORMAL"
            case full = "FULL"
            case extra = "EXTRA"
        }

        /// The database file, or `:memory:`.
        public var path: String
        /// How long a statement waits for another connection's lock before failing with `.busy`.
        public var busyTimeout: Duration = .seconds(5)
        /// Write-ahead logging (readers never block the writer; required for online backups while writing).
        public var walMode = true
        /// Enforce FOREIGN KEY constraints (SQLite's default is off).
        public var foreignKeys = true
        public var synchronous: Synchronous = .normal
        /// Permission bits of a database file this opens for the first time
        /// (the `-wal` and `-shm` files get the same). An existing file keeps its mode.
        public var fileMode: UInt32 = 0o600
        /// Prepared statements kept per connection (0 disables the cache).
        public var statementCacheCapacity = 64

        public init(
            path: String,
            busyTimeout: Duration = .seconds(5),
            walMode: Bool = true,
            foreignKeys: Bool = true,
            synchronous: Synchronous = .normal,
            fileMode: UInt32 = 0o600,
            statementCacheCapacity: Int = 64
        ) {
            self.path = path
            self.busyTimeout = busyTimeout
            self.walMode = walMode
            self.foreignKeys = foreignKeys
            self.synchronous = synchronous
            self.fileMode = fileMode
            self.statementCacheCapacity = statementCacheCapacity
        }

        /// An in-memory database (tests, scratch work).
        public static var inMemory: Configuration { Configuration(path: ":memory:") }

        var isInMemory: Bool { path == ":memory:" || path.isEmpty }

        var busyTimeoutMilliseconds: Int32 {
            let (seconds, attoseconds) = busyTimeout.components
            let ms = seconds.multipliedReportingOverflow(by: 1000)
            guard !ms.overflow, seconds >= 0 else { return seconds < 0 ? 0 : Int32.max }
            return Int32(clamping: ms.partialValue + attoseconds / 1_000_000_000_000_000)
        }
    }
}
