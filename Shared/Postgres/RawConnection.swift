import CLibPQ
import Foundation
import MailwakeCore
import Synchronization

/// State every connection of one pool shares: the failure epoch (a connection
/// that saw the server vanish bumps it, so the others check themselves before
/// their next use) and the reconnection backoff.
final class ConnectionHealth: Sendable {
    private struct Gate {
        var failures = 0
        var nextAttempt = ContinuousClock.now
    }

    private let epoch = Atomic<UInt64>(0)
    private let gate = Mutex(Gate())
    private let quiet = Atomic<Bool>(false)
    let initialBackoff: Duration
    let maxBackoff: Duration

    init(initialBackoff: Duration, maxBackoff: Duration) {
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
    }

    var currentEpoch: UInt64 { epoch.load(ordering: .acquiring) }

    func connectionLost() { epoch.add(1, ordering: .releasing) }

    /// Whether failed connection attempts log at debug level (someone else reports them).
    var quietConnectFailures: Bool { quiet.load(ordering: .relaxed) }

    func setQuietConnectFailures(_ value: Bool) { quiet.store(value, ordering: .relaxed) }

    /// How long to wait before the next connection attempt (zero after a success).
    func delayBeforeAttempt() -> Duration {
        gate.withLock { g in
            let now = ContinuousClock.now
            return g.nextAttempt > now ? g.nextAttempt - now : .zero
        }
    }

    func recordAttempt(succeeded: Bool) {
        gate.withLock { g in
            if succeeded {
                g.failures = 0
                g.nextAttempt = .now
            } else {
                let exponent = min(g.failures, 16)
                var delay = initialBackoff * (1 << exponent)
                if delay > maxBackoff { delay = maxBackoff }
                g.failures += 1
                g.nextAttempt = .now + delay
            }
        }
    }
}

/// Cancels the statement a connection is running, from another thread
/// (`PQcancel` is thread-safe; the `PGcancel` object is guarded here).
// Safe to share: `handle` is guarded by `lock`, and PQcancel itself is thread-safe.
final class StatementCanceller: @unchecked Sendable {
    private let lock = NSLock()
    private var handle: OpaquePointer?
    private var running: JobToken?

    func install(from pg: OpaquePointer?) {
        lock.lock()
        defer { lock.unlock() }
        if let handle { PQfreeCancel(handle) }
        handle = pg.flatMap { PQgetCancel($0) }
    }

    func begin(_ token: JobToken) {
        lock.lock()
        running = token
        lock.unlock()
    }

    func end() {
        lock.lock()
        running = nil
        lock.unlock()
    }

    /// Asks the server to cancel the running statement while it is still `token`'s.
    ///
    /// A cancel request that reaches the backend between two protocol
    /// messages (say between PREPARE and EXECUTE) is ignored by the server, so
    /// it is repeated every 100 ms while the job runs (for at most 10 s). The
    /// lock is held across `PQcancel`, which returns once the server has
    /// signalled the backend, so a request never outlives its job.
    func cancel(ifRunning token: JobToken) {
        // PQcancel and the pauses block: a thread of its own, not a Dispatch worker (the pool's on Linux).
        OwnThread.start(name: "mw-pg-cancel") {
            for _ in 0..<100 {
                self.lock.lock()
                guard self.running === token, let handle = self.handle else {
                    self.lock.unlock()
                    return
                }
                var buffer = [CChar](repeating: 0, count: 256)
                _ = PQcancel(handle, &buffer, 256)
                self.lock.unlock()
                usleep(100_000)
            }
        }
    }

    deinit {
        if let handle { PQfreeCancel(handle) }
    }
}

/// Marks one unit of work handed to a connection's thread.
final class JobToken: Sendable {
    private let flag = Atomic<Bool>(false)
    var isCancelled: Bool { flag.load(ordering: .acquiring) }
    func cancel() { flag.store(true, ordering: .releasing) }
}

/// One libpq connection. Touched only on its worker thread (see
/// `ConnectionWorker`); never shared.
final class RawConnection {
    enum LeaseState { case fresh, active, lost }

    let configuration: PostgresClient.Configuration
    let logger: Logger
    let health: ConnectionHealth
    let canceller = StatementCanceller()
    /// Notices of the current connection (an unreplicated commit).
    let notices = ConnectionNotices()
    private(set) var pg: OpaquePointer?
    private var checkedEpoch: UInt64 = 0
    /// The server of the host list the last connection reached (for the failover log line).
    private var lastServer: String?
    /// A statement found the server read-only (a standby, or a primary demoted under it): reconnect at the lease's end.
    private var sawReadOnlyServer = false

    // Prepared statement cache: key (SQL + parameter types) → name.
    private struct Prepared {
        let name: String
        var lastUse: UInt64
    }
    private var statements: [PreparedStatementKey: Prepared] = [:]
    private var useCounter: UInt64 = 0
    private var statementNumber = 0

    // Lease tracking: reconnecting is allowed only before the first statement of a lease.
    private var leaseID: UInt64 = 0
    private(set) var leaseState = LeaseState.fresh
    /// Called when the connection is found dead (for metrics and logs).
    var onConnected: (() -> Void)?
    var onDisconnected: (() -> Void)?
    var onConnectFailed: (() -> Void)?

    init(configuration: PostgresClient.Configuration, logger: Logger, health: ConnectionHealth) {
        self.configuration = configuration
        self.logger = logger
        self.health = health
    }

    deinit { disconnect() }

    var isConnected: Bool { pg != nil && PQstatus(pg) == CONNECTION_OK }

    var transactionStatus: PGTransactionStatusType { pg.map { PQtransactionStatus($0) } ?? PQTRANS_UNKNOWN }

    // MARK: connecting

    func connect() throws(PostgresError) {
        disconnect()
        let delay = health.delayBeforeAttempt()
        if delay > .zero {
            let ns = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            var ts = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&ts, &remaining) != 0 && errno == EINTR { ts = remaining }
        }
        let params = configuration.libpqParameters()
        let keys = params.map { strdup($0.0) }
        let values = params.map { strdup($0.1) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        var keyPointers: [UnsafePointer<CChar>?] = keys.map { UnsafePointer($0) } + [nil]
        var valuePointers: [UnsafePointer<CChar>?] = values.map { UnsafePointer($0) } + [nil]
        let conn = PQconnectdbParams(&keyPointers, &valuePointers, 0)
        guard let conn, PQstatus(conn) == CONNECTION_OK else {
            let message = conn.map { Self.errorMessage($0) } ?? "out of memory"
            if let conn { PQfinish(conn) }
            health.recordAttempt(succeeded: false)
            onConnectFailed?()
            if health.quietConnectFailures {
                logger.debug("postgres connect failed", ["error": .string(message), "endpoint": .string(endpointDescription)])
            } else {
                logger.warning("postgres connect failed", ["error": .string(message), "endpoint": .string(endpointDescription)])
            }
            throw PostgresError(.connection, "could not connect to \(endpointDescription): \(message)")
        }
        health.recordAttempt(succeeded: true)
        notices.install(on: conn)  // notices never reach stderr
        pg = conn
        sawReadOnlyServer = false
        checkedEpoch = health.currentEpoch
        canceller.install(from: conn)
        let server = Self.connectedServer(conn)
        if configuration.additionalEndpoints.isEmpty || server == lastServer {
            logger.debug("postgres connected", ["server": .string(server), "backend_pid": .int(PQbackendPID(conn))])
        } else {
            // Another server of the host list than before (a failover, or the first connection).
            logger.info("postgres connected",
                        ["server": .string(server), "endpoints": .string(endpointDescription), "backend_pid": .int(PQbackendPID(conn))])
        }
        lastServer = server
        onConnected?()
    }

    func disconnect() {
        guard let conn = pg else { return }
        canceller.install(from: nil)
        PQfinish(conn)
        pg = nil
        statements.removeAll()
        onDisconnected?()
    }

    /// The host list, as `host:port` entries separated by commas.
    var endpointDescription: String {
        configuration.endpoints.map(\.description).joined(separator: ",")
    }

    /// The server of the host list this connection reached (`PQhost`/`PQport`).
    private static func connectedServer(_ conn: OpaquePointer) -> String {
        let host = PQhost(conn).map { String(cString: $0) } ?? "?"
        let port = PQport(conn).map { String(cString: $0) } ?? "?"
        return PostgresClient.Configuration.Endpoint(host: host, port: Int(port) ?? 0).description
    }

    static func errorMessage(_ conn: OpaquePointer) -> String {
        guard let c = PQerrorMessage(conn) else { return "unknown error" }
        return String(cString: c).trimmingCharacters(in: .whitespacesAndNewlines).replacingAll("\n", with: " ")
    }

    // MARK: liveness

    /// Whether an idle connection's socket shows the server went away (EOF or a
    /// FATAL message waiting), without sending anything.
    private func socketLooksDead() -> Bool {
        guard let conn = pg else { return true }
        let fd = PQsocket(conn)
        guard fd >= 0 else { return true }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let n = poll(&p, 1, 0)
        if n <= 0 { return false }
        if p.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return true }
        // Readable while idle: the server sent something unprompted, usually a
        // FATAL message before closing (restart, pg_terminate_backend). Read
        // it, then make sure with a round trip.
        if PQconsumeInput(conn) == 0 { return true }
        while let n = PQnotifies(conn) { PQfreemem(n) }
        return PQstatus(conn) != CONNECTION_OK || !ping()
    }

    /// One round trip (an empty query).
    private func ping() -> Bool {
        guard let conn = pg, let res = PQexec(conn, "") else { return false }
        defer { PQclear(res) }
        return PQresultStatus(res) == PGRES_EMPTY_QUERY && PQstatus(conn) == CONNECTION_OK
    }

    /// Makes the connection usable at the start of a lease: connects, or
    /// replaces a connection that died while idle. Nothing of the lease has
    /// been sent yet, so a replacement is invisible to the caller.
    private func prepareForLease() throws(PostgresError) {
        if !isConnected {
            try connect()
            return
        }
        var dead = socketLooksDead()
        if !dead && checkedEpoch != health.currentEpoch {
            dead = !ping()
            checkedEpoch = health.currentEpoch
        }
        if dead {
            logger.info("postgres connection found closed while idle; reconnecting", ["endpoint": .string(endpointDescription)])
            try connect()
        }
    }

    /// Runs before every statement of lease `lease`.
    func enter(lease: UInt64) throws(PostgresError) {
        if lease != leaseID {
            leaseID = lease
            leaseState = .fresh
        }
        switch leaseState {
        case .active:
            guard isConnected else {
                leaseState = .lost
                throw PostgresError(.connection, "connection to the server was lost")
            }
        case .lost:
            throw PostgresError(.connection, "connection to the server was lost earlier in this session")
        case .fresh:
            try prepareForLease()
            leaseState = .active
        }
    }

    /// Runs after every statement: a connection found broken is closed, and the
    /// others in the pool are told to check themselves.
    func afterStatement() {
        if let conn = pg, PQstatus(conn) != CONNECTION_OK {
            logger.warning("postgres connection lost", ["endpoint": .string(endpointDescription)])
            leaseState = .lost
            disconnect()
            health.connectionLost()
        }
    }

    /// Ends a lease: rolls back a transaction left open, so the next user starts clean.
    func endLease(_ lease: UInt64) {
        guard lease == leaseID, let conn = pg else { return }
        let status = PQtransactionStatus(conn)
        if status == PQTRANS_INTRANS || status == PQTRANS_INERROR {
            logger.warning("postgres connection returned inside a transaction; rolling back")
            if let res = PQexec(conn, "ROLLBACK") { PQclear(res) }
        } else if status == PQTRANS_ACTIVE || status == PQTRANS_UNKNOWN {
            disconnect()
        }
        if pg != nil && PQstatus(pg) != CONNECTION_OK { disconnect() }
        if sawReadOnlyServer {
            // The next lease connects again, and target_session_attrs=read-write finds the primary.
            logger.warning("postgres server is read-only; reconnecting", ["endpoint": .string(endpointDescription)])
            sawReadOnlyServer = false
            disconnect()
        }
        leaseID = 0
        leaseState = .fresh
    }

    // MARK: statements

    /// Runs a parameterized statement (binary results), through the prepared
    /// statement cache unless it is disabled.
    func run(_ query: PostgresQuery) throws(PostgresError) -> PostgresRows {
        guard let conn = pg else { throw PostgresError(.connection, "not connected") }
        let bindings = query.bindings
        guard bindings.count <= 65535 else { throw PostgresError(.query, "too many parameters (\(bindings.count))") }
        logger.trace("postgres statement", ["sql": .string(String(query.sql.prefix(500))), "parameters": .int(bindings.count)])

        if configuration.statementCacheCapacity <= 0 {
            let res = withParameters(bindings) { n, types, values, lengths, formats in
                PQexecParams(conn, query.sql, n, types, values, lengths, formats, 1)
            }
            return try consume(res)
        }

        let wasIdle = PQtransactionStatus(conn) == PQTRANS_IDLE
        var retried = false
        while true {
            let name = try preparedName(for: query, on: conn)
            let res = withParameters(bindings) { n, _, values, lengths, formats in
                PQexecPrepared(conn, name, n, values, lengths, formats, 1)
            }
            do {
                return try consume(res)
            } catch {
                // A cached plan made stale by DDL, or a statement dropped by DISCARD/DEALLOCATE ALL.
                let stale = error.sqlState == PostgresError.SQLState.featureNotSupported
                    || error.sqlState == PostgresError.SQLState.invalidSQLStatementName
                guard stale, !retried else { throw error }
                forget(query, on: conn, all: error.sqlState == PostgresError.SQLState.invalidSQLStatementName)
                guard wasIdle else { throw error }  // inside a transaction the error already aborted it
                retried = true
            }
        }
    }

    /// Runs SQL text with the simple query protocol: several statements allowed,
    /// no parameters (for migrations, BEGIN/COMMIT and fixed DDL).
    func runScript(_ sql: String) throws(PostgresError) -> PostgresRows {
        guard let conn = pg else { throw PostgresError(.connection, "not connected") }
        logger.trace("postgres script", ["sql": .string(String(sql.prefix(500)))])
        guard PQsendQuery(conn, sql) == 1 else { throw error(conn: conn, result: nil) }
        var last: PostgresRows = PostgresRows(storage: .empty, commandTag: "", affectedRows: 0)
        var firstError: PostgresError?
        while let res = PQgetResult(conn) {
            do {
                let rows = try consume(res)
                last = rows
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
        if PQstatus(conn) != CONNECTION_OK { throw error(conn: conn, result: nil) }
        return last
    }

    private func preparedName(for query: PostgresQuery, on conn: OpaquePointer) throws(PostgresError) -> String {
        let key = PreparedStatementKey(query)
        useCounter += 1
        if let hit = statements.index(forKey: key) {
            statements.values[hit].lastUse = useCounter
            return statements.values[hit].name
        }
        if statements.count >= configuration.statementCacheCapacity { evictLeastRecentlyUsed(on: conn) }
        statementNumber += 1
        let name = "mw_\(statementNumber)"
        let types = query.bindings.types.map { Oid($0.rawValue) }
        let res = types.withUnsafeBufferPointer { PQprepare(conn, name, query.sql, Int32(types.count), $0.baseAddress) }
        _ = try consume(res)
        statements[key] = Prepared(name: name, lastUse: useCounter)
        logger.debug("postgres statement prepared", ["statement": .string(name), "sql": .string(String(query.sql.prefix(500)))])
        return name
    }

    private func evictLeastRecentlyUsed(on conn: OpaquePointer) {
        // DEALLOCATE fails inside an aborted transaction; exceed the capacity until later.
        guard PQtransactionStatus(conn) != PQTRANS_INERROR,
              let victim = statements.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
        statements[victim.key] = nil
        if let res = PQexec(conn, "DEALLOCATE " + victim.value.name) { PQclear(res) }
    }

    private func forget(_ query: PostgresQuery, on conn: OpaquePointer, all: Bool) {
        if all {
            statements.removeAll()
            return
        }
        let key = PreparedStatementKey(query)
        if let entry = statements.removeValue(forKey: key), PQtransactionStatus(conn) == PQTRANS_IDLE {
            if let res = PQexec(conn, "DEALLOCATE " + entry.name) { PQclear(res) }
        }
    }

    private func withParameters<R>(
        _ b: PostgresBindings,
        _ body: (Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        let n = b.count
        if n == 0 { return body(0, nil, nil, nil, nil) }
        // libpq's arrays live on the stack for the call, and the values are read where the bindings keep them, instead
        // of a copy of every value and four arrays on the heap per statement.
        // A non-NULL empty value still needs a non-NULL pointer: bindings whose values are all empty have no storage
        // address, so they lend one byte of their own.
        let storage = b.storage.isEmpty ? [0] : b.storage
        return withUnsafeTemporaryAllocation(of: Oid.self, capacity: n) { types in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * n) { lengthsAndFormats in
                withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: n) { values in
                    storage.withUnsafeBufferPointer { bytes in
                        let base = UnsafeRawPointer(bytes.baseAddress!)
                        for i in 0..<n {
                            types[i] = Oid(b.types[i].rawValue)
                            lengthsAndFormats[i] = Int32(b.lengths[i])
                            lengthsAndFormats[n + i] = 1  // binary
                            let offset = b.offsets[i]
                            values[i] = offset < 0 ? nil : (base + offset).assumingMemoryBound(to: CChar.self)
                        }
                        let lengths = UnsafePointer(lengthsAndFormats.baseAddress!)
                        return body(Int32(n), UnsafePointer(types.baseAddress), UnsafePointer(values.baseAddress), lengths,
                                    lengths + n)
                    }
                }
            }
        }
    }

    /// Copies a result into Swift memory and frees it; errors become `PostgresError`.
    private func consume(_ res: OpaquePointer?) throws(PostgresError) -> PostgresRows {
        guard let conn = pg else { throw PostgresError(.connection, "not connected") }
        guard let res else { throw error(conn: conn, result: nil) }
        defer { PQclear(res) }
        switch PQresultStatus(res) {
        case PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE:
            return Self.copyRows(res)
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(storage: .empty, commandTag: Self.commandTag(res), affectedRows: Self.affected(res))
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            throw PostgresError(.query, "COPY is not supported")
        default:
            throw error(conn: conn, result: res)
        }
    }

    private func error(conn: OpaquePointer, result: OpaquePointer?) -> PostgresError {
        func field(_ code: UInt8) -> String? {
            guard let result, let p = PQresultErrorField(result, Int32(code)) else { return nil }
            return String(cString: p)
        }
        let lost = PQstatus(conn) != CONNECTION_OK
        if let state = field(UInt8(ascii: "C")) {
            let primary = field(UInt8(ascii: "M")) ?? "server error"
            var code: PostgresError.Code = .server
            if lost || state.hasPrefix("08") || state == PostgresError.SQLState.adminShutdown
                || state == PostgresError.SQLState.crashShutdown {
                code = .connection
            } else if state == PostgresError.SQLState.queryCanceled {
                code = .timeout
            } else if state == PostgresError.SQLState.readOnlySQLTransaction {
                sawReadOnlyServer = true
            }
            var e = PostgresError(code, PostgresError.redacted(message: primary, sqlState: state), sqlState: state)
            e.constraintName = field(UInt8(ascii: "n"))
            e.tableName = field(UInt8(ascii: "t"))
            e.columnName = field(UInt8(ascii: "c"))
            return e
        }
        let message = result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? Self.errorMessage(conn)
        let cleaned = message.trimmingCharacters(in: .whitespacesAndNewlines).replacingAll("\n", with: " ")
        return PostgresError(lost ? .connection : .query, cleaned.isEmpty ? "statement failed" : cleaned)
    }

    private static func commandTag(_ res: OpaquePointer) -> String {
        PQcmdStatus(res).map { String(cString: $0) } ?? ""
    }

    private static func affected(_ res: OpaquePointer) -> Int {
        guard let p = PQcmdTuples(res) else { return 0 }
        return Int(String(cString: p)) ?? 0
    }

    private static func copyRows(_ res: OpaquePointer) -> PostgresRows {
        let ncols = Int(PQnfields(res))
        let nrows = Int(PQntuples(res))
        var columns: [PostgresColumn] = []
        columns.reserveCapacity(ncols)
        for c in 0..<ncols {
            let name = PQfname(res, Int32(c)).map { String(cString: $0) } ?? "?column?"
            columns.append(PostgresColumn(name: name, type: PostgresDataType(UInt32(PQftype(res, Int32(c))))))
        }
        var total = 0
        for r in 0..<nrows { for c in 0..<ncols { total += Int(PQgetlength(res, Int32(r), Int32(c))) } }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(total)
        var offsets: [Int] = []
        var lengths: [Int] = []
        offsets.reserveCapacity(nrows * ncols)
        lengths.reserveCapacity(nrows * ncols)
        for r in 0..<nrows {
            for c in 0..<ncols {
                if PQgetisnull(res, Int32(r), Int32(c)) == 1 {
                    offsets.append(-1)
                    lengths.append(0)
                    continue
                }
                let len = Int(PQgetlength(res, Int32(r), Int32(c)))
                offsets.append(bytes.count)
                lengths.append(len)
                if len > 0, let p = PQgetvalue(res, Int32(r), Int32(c)) {
                    p.withMemoryRebound(to: UInt8.self,
                                        capacity: len) { bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: len)) }
                }
            }
        }
        let storage = PostgresResultStorage(columns: columns, rowCount: nrows, bytes: bytes, offsets: offsets, lengths: lengths)
        return PostgresRows(storage: storage, commandTag: commandTag(res), affectedRows: affected(res))
    }
}
