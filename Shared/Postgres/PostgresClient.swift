public import MailwakeCore
import Synchronization

/// A pool of at most `configuration.poolSize` PostgreSQL connections.
///
/// Each connection is owned by its own thread and lent to one task at a time
/// (`withConnection`, `withTransaction`, or the one-statement shortcuts).
/// Connections open lazily, are checked before reuse after a failure, and
/// reconnect with backoff after the server restarts. Callers wait at most
/// `checkoutTimeout` for a free connection.
///
///     let client = PostgresClient(configuration: try .init(url: url), logger: logger)
///     let rows = try await client.query("SELECT id FROM devices WHERE token = \(token)")
///     try await client.withTransaction { tx in
///         try await tx.execute("INSERT INTO a (x) VALUES (\(x))")
///         try await tx.execute("UPDATE b SET n = n + 1 WHERE id = \(id)")
///     }
public final class PostgresClient: Service, Sendable {
    public let configuration: Configuration
    public var name: String { "postgres" }
    let logger: Logger
    let health: ConnectionHealth
    private let metrics: PoolMetrics?

    private struct Waiter {
        let continuation: CheckedContinuation<ConnectionWorker, any Error>
        var timeout: Task<Void, Never>?
    }

    private struct State {
        var workers: [ConnectionWorker] = []
        var idle: [ConnectionWorker] = []
        var leased = 0
        var waiters: [UInt64: Waiter] = [:]
        var waitOrder: [UInt64] = []
        var nextID: UInt64 = 0
        var closed = false
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let leaseCounter = Atomic<UInt64>(0)

    /// - Parameters:
    ///   - metrics: when given, registers `<metricsPrefix>_connections`, `_connections_in_use`,
    ///     `_connect_failures_total` and `_checkout_wait_seconds`.
    public init(configuration: Configuration, logger: Logger, metrics: MetricsRegistry? = nil,
                metricsPrefix: String = "mailwake_postgres") {
        precondition(configuration.poolSize > 0, "poolSize must be positive")
        self.configuration = configuration
        self.logger = logger
        self.health = ConnectionHealth(initialBackoff: configuration.reconnectBackoffInitial,
                                       maxBackoff: configuration.reconnectBackoffMax)
        self.metrics = metrics.map { PoolMetrics(registry: $0, prefix: metricsPrefix) }
    }

    deinit {
        let workers = state.withLock { $0.workers }
        workers.forEach { $0.shutdown() }
    }

    // MARK: leasing

    /// Lends a connection to `body` and takes it back afterwards (even when `body` throws).
    @discardableResult
    public func withConnection<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let worker = try await acquire()
        let lease = nextLease()
        let connection = PostgresConnection(worker: worker, lease: lease, logger: logger)
        defer {
            connection.markReturned()
            giveBack(worker, lease: lease)
        }
        return try await body(connection)
    }

    /// Runs `body` in a transaction on one connection: COMMIT on return,
    /// ROLLBACK on throw.
    @discardableResult
    public func withTransaction<T>(
        isolation: isolated (any Actor)? = #isolation,
        level: PostgresConnection.IsolationLevel? = nil,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection { connection in
            try await connection.withTransaction(level: level, body)
        }
    }

    /// Runs one statement on any connection.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await withConnection { try await $0.query(query) }
    }

    /// Runs one statement without a task: on a connection free now, whose thread then calls `completion` (it must not
    /// block: the connection stays lent until it returns); on a task, as `query(_:)` does, when every connection is lent.
    public func query(_ query: PostgresQuery, then completion: @escaping @Sendable (Result<PostgresRows, any Error>) -> Void) {
        let worker: ConnectionWorker
        switch acquireNow() {
        case .ready(let w): worker = w
        case .closed:
            completion(.failure(PostgresError(.poolClosed, "the connection pool is closed")))
            return
        case .wait:
            Task { completion(await Result { try await self.query(query) }) }
            return
        }
        let lease = nextLease()
        logger.debug("postgres query", ["sql": .string(String(query.sql.prefix(500)))])
        worker.perform(lease: lease, { raw throws(PostgresError) in try raw.run(query) }) { [self] result in
            completion(result)
            giveBack(worker, lease: lease)
        }
    }

    /// Runs one statement and returns the number of affected rows.
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await withConnection { try await $0.execute(query) }
    }

    /// Whether the server answers `SELECT 1` now (a readiness check; never throws).
    public func isReachable() async -> Bool {
        (try? await query("SELECT 1")) != nil
    }

    /// `SELECT pg_notify(channel, payload)` on any connection.
    public func notify(channel: String, payload: String = "") async throws {
        try await withConnection { try await $0.notify(channel: channel, payload: payload) }
    }

    /// Connections open now (lazily created, at most `poolSize`).
    public var connectionCount: Int { state.withLock { $0.workers.count } }

    private func makeWorker(_ s: inout State) -> ConnectionWorker {
        let id = s.workers.count + 1
        let raw = RawConnection(configuration: configuration, logger: logger.with("pg_connection", .int(id)), health: health)
        if let metrics {
            raw.onConnected = { metrics.open.increment() }
            raw.onDisconnected = { metrics.open.decrement() }
            raw.onConnectFailed = { metrics.connectFailures.increment() }
        }
        let worker = ConnectionWorker(id: id, raw: raw, name: "mailwake-pg-\(id)")
        s.workers.append(worker)
        return worker
    }

    private func nextLease() -> UInt64 { leaseCounter.add(1, ordering: .relaxed).newValue }

    /// Ends `lease` on the connection's thread (rolling back what it left open), then returns the connection to the pool.
    private func giveBack(_ worker: ConnectionWorker, lease: UInt64) {
        worker.endLease(lease)
        release(worker)
    }

    private enum Decision {
        case ready(ConnectionWorker)
        case wait
        case closed
    }

    /// A connection free now (or opened now, below `poolSize`), leased; `.wait` when every one is lent.
    private func acquireNow() -> Decision {
        let decision: Decision = state.withLock { s in
            if s.closed { return .closed }
            if let w = s.idle.popLast() {
                s.leased += 1
                return .ready(w)
            }
            if s.workers.count < configuration.poolSize {
                s.leased += 1
                return .ready(makeWorker(&s))
            }
            return .wait
        }
        if case .ready = decision { metrics?.inUse.increment() }
        return decision
    }

    private func acquire() async throws -> ConnectionWorker {
        switch acquireNow() {
        case .closed: throw PostgresError(.poolClosed, "the connection pool is closed")
        case .ready(let w): return w
        case .wait: break
        }
        let start = ContinuousClock.now
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        let worker = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ConnectionWorker, any Error>) in
                let immediate: Result<ConnectionWorker, any Error>? = state.withLock { s in
                    if s.closed { return .failure(PostgresError(.poolClosed, "the connection pool is closed")) }
                    if let w = s.idle.popLast() {
                        s.leased += 1
                        return .success(w)
                    }
                    s.waiters[id] = Waiter(continuation: continuation, timeout: nil)
                    s.waitOrder.append(id)
                    return nil
                }
                if let immediate {
                    continuation.resume(with: immediate)
                    return
                }
                let limit = configuration.checkoutTimeout
                let timeout = Task { [weak self] in
                    do { try await Task.sleep(for: limit) } catch { return }
                    self?.failWaiter(id,
                                     PostgresError(.timeout,
                                                   """
                                                   no pooled connection became free within \(limit) (pool size \
                                                   \(self?.configuration.poolSize ?? 0))
                                                   """))
                }
                let stored = state.withLock { s in
                    guard s.waiters[id] != nil else { return false }
                    s.waiters[id]!.timeout = timeout
                    return true
                }
                if !stored { timeout.cancel() }
                if Task.isCancelled { failWaiter(id, CancellationError()) }
            }
        } onCancel: {
            self.failWaiter(id, CancellationError())
        }
        metrics?.inUse.increment()
        metrics?.checkoutWait.observe(Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000)
        return worker
    }

    private func failWaiter(_ id: UInt64, _ error: any Error) {
        let waiter = state.withLock { s -> Waiter? in
            guard let w = s.waiters.removeValue(forKey: id) else { return nil }
            s.waitOrder.removeAll { $0 == id }
            return w
        }
        guard let waiter else { return }
        waiter.timeout?.cancel()
        waiter.continuation.resume(throwing: error)
    }

    private func release(_ worker: ConnectionWorker) {
        metrics?.inUse.decrement()
        enum Next {
            case handOff(Waiter)
            case pooled
            case retire([CheckedContinuation<Void, Never>])
        }
        let next: Next = state.withLock { s in
            s.leased -= 1
            if s.closed {
                s.workers.removeAll { $0 === worker }
                let drained = s.leased == 0 ? s.drained : []
                if s.leased == 0 { s.drained = [] }
                return .retire(drained)
            }
            while let id = s.waitOrder.first {
                s.waitOrder.removeFirst()
                if let waiter = s.waiters.removeValue(forKey: id) {
                    s.leased += 1
                    return .handOff(waiter)
                }
            }
            s.idle.append(worker)
            return .pooled
        }
        switch next {
        case .handOff(let waiter):
            waiter.timeout?.cancel()
            waiter.continuation.resume(returning: worker)
        case .pooled: break
        case .retire(let drained):
            worker.shutdown()
            drained.forEach { $0.resume() }
        }
    }

    // MARK: lifecycle

    /// Closes the pool: new requests and waiting callers fail with
    /// `.poolClosed`; connections in use finish their work and are closed
    /// when returned. Returns when every connection is closed.
    public func close() async {
        let (all, waiters, mustDrain) = state.withLock { s -> ([ConnectionWorker], [Waiter], Bool) in
            s.closed = true
            let all = s.workers
            s.idle = []
            let waiters = Array(s.waiters.values)
            s.waiters = [:]
            s.waitOrder = []
            return (all, waiters, s.leased > 0)
        }
        for w in waiters {
            w.timeout?.cancel()
            w.continuation.resume(throwing: PostgresError(.poolClosed, "the connection pool is closed"))
        }
        if mustDrain {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s in
                    if s.leased == 0 { return true }
                    s.drained.append(c)
                    return false
                }
                if resumeNow { c.resume() }
            }
        }
        // Every connection thread ends after its queued work and closes its connection.
        for w in all {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in w.shutdown { c.resume() } }
        }
        state.withLock { $0.workers = [] }
        logger.debug("postgres pool closed")
    }

    /// Service: runs until cancelled, then closes the pool.
    public func run() async throws {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        await close()
    }
}

struct PoolMetrics: Sendable {
    let open: Gauge
    let inUse: Gauge
    let connectFailures: Counter
    let checkoutWait: Histogram

    init(registry: MetricsRegistry, prefix: String) {
        open = registry.gauge("\(prefix)_connections", help: "Open PostgreSQL connections.")
        inUse = registry.gauge("\(prefix)_connections_in_use", help: "PostgreSQL connections lent out.")
        connectFailures = registry.counter("\(prefix)_connect_failures_total", help: "Failed PostgreSQL connection attempts.")
        checkoutWait = registry.histogram("\(prefix)_checkout_wait_seconds", help: "Time spent waiting for a free pooled connection.")
    }
}
