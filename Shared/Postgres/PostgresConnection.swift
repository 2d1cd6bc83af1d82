import MailwakeCore
import Synchronization

/// A pooled connection, lent to one task for the duration of
/// `PostgresClient.withConnection` / `withTransaction`. Its statements run in
/// order on the connection's own thread. Do not keep it past the closure:
/// using it afterwards fails with `.query`.
public final class PostgresConnection: Sendable {
    let worker: ConnectionWorker
    let lease: UInt64
    let logger: Logger
    private let returned = Atomic<Bool>(false)
    private let transactionDepth = Atomic<Int>(0)

    init(worker: ConnectionWorker, lease: UInt64, logger: Logger) {
        self.worker = worker
        self.lease = lease
        self.logger = logger
    }

    func markReturned() { returned.store(true, ordering: .releasing) }

    private func checkLease() throws {
        if returned.load(ordering: .acquiring) {
            throw PostgresError(.query, "connection used after it was returned to the pool")
        }
    }

    /// Runs a statement and returns its rows.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try checkLease()
        logger.debug("postgres query", ["sql": .string(String(query.sql.prefix(500)))])
        return try await worker.perform(lease: lease) { raw throws(PostgresError) in try raw.run(query) }
    }

    /// Runs a statement and returns the number of rows it affected.
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await self.query(query).affectedRows
    }

    /// Runs fixed SQL text (one or more statements, no parameters) with the
    /// simple query protocol: for DDL and migrations. Never build `sql` from values.
    @discardableResult
    public func runScript(_ sql: String) async throws -> PostgresRows {
        try checkLease()
        logger.debug("postgres script", ["sql": .string(String(sql.prefix(500)))])
        return try await worker.perform(lease: lease) { raw throws(PostgresError) in try raw.runScript(sql) }
    }

    /// `SELECT pg_notify(channel, payload)`.
    public func notify(channel: String, payload: String = "") async throws {
        try await query("SELECT pg_notify(\(channel), \(payload))")
    }

    /// The server process serving this connection.
    public func backendPID() async throws -> Int32 {
        let rows = try await query("SELECT pg_backend_pid()")
        return try rows.single().decode(Int32.self, at: 0)
    }

    /// Transaction isolation levels.
    public enum IsolationLevel: String, Sendable {
        case readCommitted = "READ COMMITTED"
        case repeatableRead = "REPEATABLE READ"
        case serializable = "SERIALIZABLE"
    }

    /// Runs `body` in a transaction: COMMIT when it returns, ROLLBACK when it
    /// throws (the error is rethrown). Nested calls use savepoints. If the
    /// body swallowed a statement error, COMMIT turns into a rollback and this
    /// throws.
    @discardableResult
    public func withTransaction<T>(
        isolation: isolated (any Actor)? = #isolation,
        level: IsolationLevel? = nil,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try checkLease()
        let depth = transactionDepth.add(1, ordering: .relaxed).newValue
        defer { transactionDepth.subtract(1, ordering: .relaxed) }
        let savepoint = "mw_savepoint_\(depth)"
        let begin: String
        if depth == 1 {
            begin = level.map { "BEGIN ISOLATION LEVEL \($0.rawValue)" } ?? "BEGIN"
        } else {
            begin = "SAVEPOINT " + savepoint
        }
        try await control(begin)
        let result: T
        do {
            result = try await body(self)
        } catch {
            do {
                if depth == 1 {
                    try await control("ROLLBACK")
                } else {
                    try await control("ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)")
                }
            } catch let rollbackError {
                logger.warning("postgres rollback failed", ["error": .string(String(describing: rollbackError))])
            }
            throw error
        }
        let tag = try await control(depth == 1 ? "COMMIT" : "RELEASE SAVEPOINT \(savepoint)")
        if depth == 1 && tag == "ROLLBACK" {
            throw PostgresError(.query, "transaction was rolled back because a statement in it failed")
        }
        return result
    }

    /// BEGIN/COMMIT/ROLLBACK: not cancelled with the task, so a cancelled body still rolls back.
    @discardableResult
    private func control(_ sql: String) async throws -> String {
        try await worker.perform(lease: lease, cancellable: false) { raw throws(PostgresError) in try raw.runScript(sql).commandTag }
    }
}
