internal import CLibSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One open SQLite connection with its statement cache.
///
/// Not Sendable: a connection is owned by one `SQLiteDatabase` and used only
/// on that database's thread. Code receives it inside
/// `SQLiteDatabase.transaction { }` and `withConnection { }` and cannot keep it.
///
/// Every statement takes its values as parameters; SQL text is never built
/// from values.
public final class SQLiteConnection {
    let handle: OpaquePointer
    /// The database file path (`:memory:` for an in-memory database).
    public let path: String
    private var cache: SQLiteStatementCache
    private var savepointDepth = 0
    private var isClosed = false

    enum Parameters {
        case positional([SQLiteValue])
        case named([String: SQLiteValue])
    }

    /// Opens (creating with `configuration.fileMode` when missing) and configures a connection.
    init(configuration: SQLiteDatabase.Configuration) throws(SQLiteError) {
        let path = configuration.path
        let inMemory = configuration.isInMemory
        if !inMemory { try Self.createIfMissing(path, mode: configuration.fileMode) }

        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError.from(rc, db: db, context: .cannotOpen, what: "opening \(path)")
            sqlite3_close(db)
            throw SQLiteError(.cannotOpen, error.message, resultCode: error.resultCode)
        }
        handle = db
        self.path = path
        cache = SQLiteStatementCache(capacity: configuration.statementCacheCapacity)

        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, configuration.busyTimeoutMilliseconds)
        // No schema tricks: refuse writable_schema games and untrusted functions in the schema.
        _ = mw_sqlite3_db_config_flag(db, SQLITE_DBCONFIG_DEFENSIVE, 1)
        _ = mw_sqlite3_db_config_flag(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)

        do throws(SQLiteError) {
            try executeScript("PRAGMA foreign_keys = \(configuration.foreignKeys ? "ON" : "OFF")")
            let fk: Int64? = try queryValue("PRAGMA foreign_keys")
            guard fk == (configuration.foreignKeys ? 1 : 0) else {
                throw SQLiteError(.cannotOpen, "this SQLite build cannot switch foreign keys \(configuration.foreignKeys ? "on" : "off")")
            }
            if configuration.walMode, !inMemory {
                let mode: String? = try queryValue("PRAGMA journal_mode = WAL")
                guard mode?.lowercased() == "wal" else {
                    throw SQLiteError(.cannotOpen, "could not switch \(path) to WAL mode (journal_mode is \(mode ?? "unknown"))")
                }
            }
            try executeScript("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Finalizes cached statements and closes the handle (idempotent).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        cache.removeAll()
        if sqlite3_close(handle) != SQLITE_OK {
            // Something still holds a statement or a backup: close when it is released.
            sqlite3_close_v2(handle)
        }
    }

    /// Creates `path` with exactly `mode` when it does not exist, so SQLite
    /// (and its `-wal`/`-shm` files, which copy the database file's mode)
    /// never start world-readable.
    static func createIfMissing(_ path: String, mode: UInt32) throws(SQLiteError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        if fd >= 0 {
            // The umask may have removed bits; set exactly what was asked.
            fchmod(fd, mode_t(mode))
            Glibc.close(fd)
            return
        }
        let err = errno
        if err == EEXIST { return }
        throw SQLiteError(.cannotOpen, "cannot create \(path): \(String(cString: strerror(err)))")
    }

    // MARK: Statements

    /// Runs one statement with positional parameters (`?`, `?1`) and returns the number of rows changed.
    @discardableResult
    public func execute(_ sql: String, _ parameters: any SQLiteBindable...) throws(SQLiteError) -> Int {
        try execute(sql, parameters: parameters)
    }

    /// Runs one statement with positional parameters and returns the number of rows changed.
    @discardableResult
    public func execute(_ sql: String, parameters: [any SQLiteBindable]) throws(SQLiteError) -> Int {
        try run(sql, .positional(parameters.map(\.sqliteValue)))
    }

    /// Runs one statement with named parameters (`:name`) and returns the number of rows changed.
    @discardableResult
    public func execute(_ sql: String, named parameters: [String: any SQLiteBindable]) throws(SQLiteError) -> Int {
        try run(sql, .named(parameters.mapValues(\.sqliteValue)))
    }

    /// All rows of one statement.
    public func query(_ sql: String, _ parameters: any SQLiteBindable...) throws(SQLiteError) -> [SQLiteRow] {
        try query(sql, parameters: parameters)
    }

    public func query(_ sql: String, parameters: [any SQLiteBindable]) throws(SQLiteError) -> [SQLiteRow] {
        try rows(sql, .positional(parameters.map(\.sqliteValue)), limit: nil)
    }

    public func query(_ sql: String, named parameters: [String: any SQLiteBindable]) throws(SQLiteError) -> [SQLiteRow] {
        try rows(sql, .named(parameters.mapValues(\.sqliteValue)), limit: nil)
    }

    /// The first row, or nil.
    public func queryRow(_ sql: String, _ parameters: any SQLiteBindable...) throws(SQLiteError) -> SQLiteRow? {
        try rows(sql, .positional(parameters.map(\.sqliteValue)), limit: 1).first
    }

    public func queryRow(_ sql: String, parameters: [any SQLiteBindable]) throws(SQLiteError) -> SQLiteRow? {
        try rows(sql, .positional(parameters.map(\.sqliteValue)), limit: 1).first
    }

    public func queryRow(_ sql: String, named parameters: [String: any SQLiteBindable]) throws(SQLiteError) -> SQLiteRow? {
        try rows(sql, .named(parameters.mapValues(\.sqliteValue)), limit: 1).first
    }

    /// The first column of the first row decoded as `T`, or nil when there is no row.
    public func queryValue<T: SQLiteDecodable>(_ sql: String, _ parameters: any SQLiteBindable...,
                                               as type: T.Type = T.self) throws(SQLiteError) -> T? {
        guard let row = try rows(sql, .positional(parameters.map(\.sqliteValue)), limit: 1).first else { return nil }
        return try row.get(0, as: T.self)
    }

    /// Runs SQL text that may hold several statements and no parameters
    /// (schema scripts, migrations, pragmas). Never build it from values.
    public func executeScript(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        let text = message.map { String(cString: $0) }
        sqlite3_free(message)
        guard rc == SQLITE_OK else {
            throw SQLiteError(SQLiteError.code(for: rc, context: .sql), text ?? String(cString: sqlite3_errstr(rc)),
                              resultCode: sqlite3_extended_errcode(handle))
        }
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The number of cached prepared statements.
    var cachedStatementCount: Int { cache.count }
    /// How many statements this connection compiled (cache misses).
    private(set) var statementsPrepared = 0

    private func run(_ sql: String, _ parameters: Parameters) throws(SQLiteError) -> Int {
        try withStatement(sql, parameters) { (statement) throws(SQLiteError) -> Int in
            while try statement.step() {}
            return Int(sqlite3_changes64(handle))
        }
    }

    private func rows(_ sql: String, _ parameters: Parameters, limit: Int?) throws(SQLiteError) -> [SQLiteRow] {
        try withStatement(sql, parameters) { (statement) throws(SQLiteError) -> [SQLiteRow] in
            var out = [SQLiteRow]()
            while try statement.step() {
                out.append(statement.currentRow())
                if let limit, out.count >= limit { break }
            }
            return out
        }
    }

    private func withStatement<R>(_ sql: String, _ parameters: Parameters,
                                  _ body: (SQLiteStatement) throws(SQLiteError) -> R) throws(SQLiteError) -> R {
        guard !isClosed else { throw SQLiteError.closedError }
        let statement: SQLiteStatement
        if let cached = cache.checkOut(sql) {
            statement = cached
        } else {
            statement = try SQLiteStatement(db: handle, sql: sql, persistent: cache.capacity > 0)
            statementsPrepared += 1
        }
        defer {
            statement.reset()
            cache.checkIn(statement)
        }
        switch parameters {
        case .positional(let values): try statement.bind(values)
        case .named(let values): try statement.bind(named: values)
        }
        return try body(statement)
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: committed when it returns, rolled back
    /// when it throws (the error is rethrown). Inside a transaction this
    /// nests as a SAVEPOINT, which is rolled back alone.
    ///
    /// `.immediate` (the default) takes the write lock at BEGIN, waiting up
    /// to the busy timeout, so a transaction that reads then writes cannot
    /// fail half-way with SQLITE_BUSY.
    @discardableResult
    public func transaction<T>(_ kind: SQLiteTransactionKind = .immediate, _ body: (SQLiteConnection) throws -> T) throws -> T {
        if isInTransaction {
            let name = "mailwake_sp\(savepointDepth)"
            savepointDepth += 1
            defer { savepointDepth -= 1 }
            try executeScript("SAVEPOINT \(name)")
            do {
                let result = try body(self)
                try executeScript("RELEASE \(name)")
                return result
            } catch {
                if isInTransaction {
                    try? executeScript("ROLLBACK TO \(name)")
                    try? executeScript("RELEASE \(name)")
                }
                throw error
            }
        }
        try executeScript("BEGIN \(kind.rawValue)")
        do {
            let result = try body(self)
            try executeScript("COMMIT")
            return result
        } catch {
            // A failed COMMIT (deferred constraint, I/O) leaves the transaction open;
            // some errors already rolled it back.
            if isInTransaction { try? executeScript("ROLLBACK") }
            throw error
        }
    }
}

@available(*, unavailable, message: "a connection belongs to its SQLiteDatabase's thread")
extension SQLiteConnection: Sendable {}
