/// An SQLite database used through one connection owned by a dedicated thread.
///
/// The actor runs on its own serial executor (one thread per database), so
/// SQLite's blocking calls (disk I/O, waiting up to the busy timeout for
/// another process's lock) never hold a thread of Swift's cooperative pool.
/// Callers `await` each operation; operations run one at a time in order.
///
/// Opened with WAL, foreign keys on, `synchronous = NORMAL`, a 5 s busy
/// timeout and mode 0600 for a new file (see `Configuration`).
///
/// ```swift
/// let db = try await SQLiteDatabase.open(.init(path: "/var/lib/mailwake/outpost.db"))
/// try await SQLiteMigrator(migrations).migrate(db)
/// try await db.transaction { c in
///     try c.execute("INSERT INTO mailbox(name, host) VALUES (?, ?)", name, host)
/// }
/// ```
public actor SQLiteDatabase {
    public nonisolated let configuration: Configuration
    private nonisolated let executor: SQLiteThreadExecutor
    private var connection: SQLiteConnection?
    var backupsInProgress = 0

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private init(configuration: Configuration) {
        self.configuration = configuration
        executor = SQLiteThreadExecutor()
    }

    /// Opens the database (creating the file when missing) on its own thread.
    public static func open(_ configuration: Configuration) async throws(SQLiteError) -> SQLiteDatabase {
        let database = SQLiteDatabase(configuration: configuration)
        try await database.connect()
        return database
    }

    /// Opens the database at `path` with the default configuration.
    public static func open(path: String) async throws(SQLiteError) -> SQLiteDatabase {
        try await open(Configuration(path: path))
    }

    private func connect() throws(SQLiteError) {
        connection = try SQLiteConnection(configuration: configuration)
    }

    deinit {
        // No job can be queued any more: let the thread finish and exit.
        // The connection closes when its last reference goes, right after this.
        executor.shutdown()
    }

    /// Closes the connection; later calls fail with `.closed`. Refused while a backup runs.
    public func close() throws(SQLiteError) {
        guard backupsInProgress == 0 else { throw SQLiteError(.misuse, "cannot close while a backup is running") }
        connection?.close()
        connection = nil
    }

    /// The open connection, or `.closed`.
    func liveConnection() throws(SQLiteError) -> SQLiteConnection {
        guard let connection else { throw SQLiteError.closedError }
        return connection
    }

    // MARK: Single statements

    /// Runs one statement with positional parameters; returns the number of rows changed.
    @discardableResult
    public func execute(_ sql: String, _ parameters: any SQLiteBindable...) throws(SQLiteError) -> Int {
        try liveConnection().execute(sql, parameters: parameters)
    }

    @discardableResult
    public func execute(_ sql: String, parameters: [any SQLiteBindable]) throws(SQLiteError) -> Int {
        try liveConnection().execute(sql, parameters: parameters)
    }

    @discardableResult
    public func execute(_ sql: String, named parameters: [String: any SQLiteBindable]) throws(SQLiteError) -> Int {
        try liveConnection().execute(sql, named: parameters)
    }

    /// All rows of one statement.
    public func query(_ sql: String, _ parameters: any SQLiteBindable...) throws(SQLiteError) -> [SQLiteRow] {
        try liveConnection().query(sql, parameters: parameters)
    }

    public func query(_ sql: String, parameters: [any SQLiteBindable]) throws(SQLiteError) -> [SQLiteRow] {
        try liveConnection().query(sql, parameters: parameters)
    }

    public func query(_ sql: String, named parameters: [String: any SQLiteBindable]) throws(SQLiteError) -> [SQLiteRow] {
        try liveConnection().query(sql, named: parameters)
    }

    /// The first row, or nil.
    public func queryRow(_ sql: String, _ parameters: any SQLiteBindable...) throws(SQLiteError) -> SQLiteRow? {
        try liveConnection().queryRow(sql, parameters: parameters)
    }

    /// The first column of the first row decoded as `T`, or nil when there is no row.
    public func queryValue<T: SQLiteDecodable>(_ sql: String, _ parameters: any SQLiteBindable...,
                                               as type: T.Type = T.self) throws(SQLiteError) -> T? {
        guard let row = try liveConnection().queryRow(sql, parameters: parameters) else { return nil }
        return try row.get(0, as: T.self)
    }

    /// Runs a parameterless script of one or more statements (schema, pragmas).
    public func executeScript(_ sql: String) throws(SQLiteError) {
        try liveConnection().executeScript(sql)
    }

    // MARK: Units of work

    /// Runs `body` in one transaction (BEGIN IMMEDIATE by default): committed
    /// when it returns, rolled back when it throws, and the error rethrown.
    ///
    /// `body` runs synchronously on the database thread, so nothing else uses
    /// the connection meanwhile. Keep it short: it holds the write lock.
    @discardableResult
    public func transaction<T: Sendable>(
        _ kind: SQLiteTransactionKind = .immediate,
        _ body: @Sendable (SQLiteConnection) throws -> T
    ) throws -> T {
        try liveConnection().transaction(kind, body)
    }

    /// Runs `body` with the connection and no transaction of its own
    /// (several reads, pragmas, or a caller-managed sequence).
    public func withConnection<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        try body(liveConnection())
    }
}
