import CLibPQ
import Foundation
public import MailwakeCore

/// A notification received with LISTEN.
public struct PostgresNotification: Sendable, Hashable {
    public let channel: String
    public let payload: String
    /// The server process that sent it.
    public let backendPID: Int32

    public init(channel: String, payload: String, backendPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.backendPID = backendPID
    }
}

/// LISTEN/NOTIFY on a dedicated connection owned by its own thread.
///
/// `subscribe(to:)` returns once the server confirmed LISTEN, so a NOTIFY
/// committed after that is delivered. After the connection drops (server
/// restart), the listener reconnects with backoff, LISTENs again on every
/// channel and yields `.reconnected` to every subscriber: notifications sent
/// while it was away are lost, so a consumer re-reads its source of truth then.
public final class PostgresListener: Service, Sendable {
    public enum Event: Sendable, Hashable {
        case notification(PostgresNotification)
        /// The connection was re-established; notifications may have been missed.
        case reconnected
    }

    public var name: String { "postgres-listener" }
    private let core: ListenerCore

    public init(configuration: PostgresClient.Configuration, logger: Logger) {
        core = ListenerCore(configuration: configuration, logger: logger)
    }

    deinit { core.stop() }

    /// Events for `channel` until the stream is dropped or the listener closes.
    /// Throws when LISTEN cannot be confirmed (e.g. the server is unreachable).
    public func subscribe(to channel: String) async throws -> AsyncStream<Event> {
        try await core.subscribe(channel)
    }

    /// Stops listening, closes the connection and finishes every stream.
    public func close() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in core.stop { c.resume() } }
    }

    /// Service: runs until cancelled, then closes.
    public func run() async throws {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        await close()
    }
}

// @unchecked Sendable: the mutable fields are guarded by `lock`; the connection is used only by the listener thread.
final class ListenerCore: @unchecked Sendable {
    private let configuration: PostgresClient.Configuration
    private let logger: Logger
    private let health: ConnectionHealth
    private let wakeRead: Int32
    private let wakeWrite: Int32

    // Guarded by `lock`.
    private let lock = NSLock()
    private var subscribers: [String: [UInt64: AsyncStream<PostgresListener.Event>.Continuation]] = [:]
    private var pendingSyncs: [CheckedContinuation<Void, any Error>] = []
    private var nextID: UInt64 = 0
    private var started = false
    private var stopping = false
    private var stopped = false
    private var onStopped: [@Sendable () -> Void] = []

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.health = ConnectionHealth(initialBackoff: configuration.reconnectBackoffInitial,
                                       maxBackoff: configuration.reconnectBackoffMax)
        // Close-on-exec from creation: no child spawned meanwhile inherits an end.
        guard let fds = FileDescriptorIO.makePipe() else { preconditionFailure("pipe2() failed") }
        for fd in [fds.read, fds.write] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wakeRead = fds.read
        wakeWrite = fds.write
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    private func wake() {
        var b: UInt8 = 1
        _ = write(wakeWrite, &b, 1)
    }

    func subscribe(_ channel: String) async throws -> AsyncStream<PostgresListener.Event> {
        let (stream, continuation) = AsyncStream<PostgresListener.Event>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let id: UInt64? = {
            lock.lock()
            defer { lock.unlock() }
            guard !stopping else { return nil }
            nextID += 1
            subscribers[channel, default: [:]][nextID] = continuation
            if !started {
                started = true
                let thread = Thread { [self] in self.loop() }
                thread.name = "mailwake-pg-listen"
                thread.start()
            }
            return nextID
        }()
        guard let id else { throw PostgresError(.poolClosed, "the listener is closed") }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(channel, id) }
        do {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if stopping {
                    lock.unlock()
                    c.resume(throwing: PostgresError(.poolClosed, "the listener is closed"))
                    return
                }
                pendingSyncs.append(c)
                lock.unlock()
                wake()
            }
        } catch {
            unsubscribe(channel, id)
            continuation.finish()
            throw error
        }
        return stream
    }

    private func unsubscribe(_ channel: String, _ id: UInt64) {
        lock.lock()
        subscribers[channel]?[id] = nil
        if subscribers[channel]?.isEmpty == true { subscribers[channel] = nil }
        lock.unlock()
        wake()
    }

    func stop(_ done: @escaping @Sendable () -> Void = {}) {
        lock.lock()
        if stopped || !started {
            stopping = true
            stopped = true
            let streams = subscribers.values.flatMap(\.values)
            subscribers = [:]
            lock.unlock()
            streams.forEach { $0.finish() }
            done()
            return
        }
        stopping = true
        onStopped.append(done)
        lock.unlock()
        wake()
    }

    // MARK: the thread

    /// What the listener thread alone keeps from one round to the next.
    private struct ThreadState {
        let raw: RawConnection
        /// The channels the server has confirmed LISTEN on for this connection.
        var listening = Set<String>()
        var everConnected = false
        /// The connection came back after a loss: subscribers hear `.reconnected` once LISTEN is restored.
        var announceReconnect = false
    }

    private func loop() {
        let raw = RawConnection(configuration: configuration, logger: logger.with("pg_connection", "listener"), health: health)
        var state = ThreadState(raw: raw)
        while true {
            lock.lock()
            let isStopping = stopping
            let idle = subscribers.isEmpty && pendingSyncs.isEmpty
            lock.unlock()
            if isStopping { break }
            if !state.raw.isConnected, !connectIfWanted(&state, idle: idle) { continue }
            guard applySubscriptions(&state) else { continue }
            awaitNotifications(&state)
        }
        state.raw.disconnect()
        finishStopping()
    }

    /// Connects when someone listens and the backoff allows it; false when it waited or failed instead.
    private func connectIfWanted(_ state: inout ThreadState, idle: Bool) -> Bool {
        if idle {
            waitForWake(timeoutMillis: -1)
            return false
        }
        let delay = health.delayBeforeAttempt()
        if delay > .zero {
            waitForWake(timeoutMillis: max(1, Int32(delay / .milliseconds(1))))
            return false
        }
        do {
            try state.raw.connect()
            state.listening = []
            if state.everConnected { state.announceReconnect = true }
            state.everConnected = true
            return true
        } catch {
            failPendingSyncs(error)
            return false
        }
    }

    /// Brings the server's LISTEN set in line with the subscribers and answers the `subscribe` calls waiting for it;
    /// false when that failed (the callers get the error).
    private func applySubscriptions(_ state: inout ThreadState) -> Bool {
        lock.lock()
        let desired = Set(subscribers.keys)
        let syncs = pendingSyncs
        pendingSyncs = []
        lock.unlock()
        if let failure = changeListening(&state, to: desired) {
            syncs.forEach { $0.resume(throwing: failure) }
            state.raw.afterStatement()
            if state.raw.isConnected { waitForWake(timeoutMillis: 1000) } else { state.listening = [] }
            return false
        }
        syncs.forEach { $0.resume() }
        if state.announceReconnect {
            state.announceReconnect = false
            logger.info("postgres listener reconnected", ["channels": .int(state.listening.count)])
            broadcast(.reconnected)
        }
        return true
    }

    /// LISTENs on the channels new in `desired`, then UNLISTENs on those gone from it; stops at the first failure.
    private func changeListening(_ state: inout ThreadState, to desired: Set<String>) -> PostgresError? {
        do throws(PostgresError) {
            for channel in desired.subtracting(state.listening) {
                _ = try state.raw.runScript("LISTEN " + PostgresQuery.quoteIdentifier(channel))
                state.listening.insert(channel)
            }
            for channel in state.listening.subtracting(desired) {
                _ = try state.raw.runScript("UNLISTEN " + PostgresQuery.quoteIdentifier(channel))
                state.listening.remove(channel)
            }
            return nil
        } catch {
            return error
        }
    }

    /// Delivers what has arrived, then waits for the socket or a wake-up; notices a lost connection.
    private func awaitNotifications(_ state: inout ThreadState) {
        let raw = state.raw
        deliverNotifications(raw)
        guard let pg = raw.pg else { return }
        let fd = PQsocket(pg)
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        let n = poll(&fds, 2, -1)
        if n < 0 { return }
        if fds[1].revents != 0 { drainWake() }
        if fds[0].revents != 0 {
            if PQconsumeInput(pg) == 0 || PQstatus(pg) != CONNECTION_OK {
                logger.warning("postgres listener connection lost")
                raw.disconnect()
                health.connectionLost()
                state.listening = []
                return
            }
            deliverNotifications(raw)
        }
    }

    /// The loop has ended: finishes every stream, fails the `subscribe` calls still waiting, runs the `stop` callbacks.
    private func finishStopping() {
        lock.lock()
        stopped = true
        let streams = subscribers.values.flatMap(\.values)
        subscribers = [:]
        let syncs = pendingSyncs
        pendingSyncs = []
        let callbacks = onStopped
        onStopped = []
        lock.unlock()
        syncs.forEach { $0.resume(throwing: PostgresError(.poolClosed, "the listener is closed")) }
        streams.forEach { $0.finish() }
        callbacks.forEach { $0() }
    }

    private func failPendingSyncs(_ error: any Error) {
        lock.lock()
        let syncs = pendingSyncs
        pendingSyncs = []
        lock.unlock()
        syncs.forEach { $0.resume(throwing: error) }
    }

    private func broadcast(_ event: PostgresListener.Event) {
        lock.lock()
        let all = subscribers.values.flatMap(\.values)
        lock.unlock()
        all.forEach { $0.yield(event) }
    }

    private func deliverNotifications(_ raw: RawConnection) {
        guard let pg = raw.pg else { return }
        while let n = PQnotifies(pg) {
            let channel = String(cString: n.pointee.relname)
            let payload = n.pointee.extra.map { String(cString: $0) } ?? ""
            let pid = n.pointee.be_pid
            PQfreemem(n)
            lock.lock()
            let targets = subscribers[channel].map { Array($0.values) } ?? []
            lock.unlock()
            let event = PostgresListener.Event.notification(PostgresNotification(channel: channel, payload: payload, backendPID: pid))
            targets.forEach { $0.yield(event) }
        }
    }

    private func waitForWake(timeoutMillis: Int32) {
        var p = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, timeoutMillis) > 0 { drainWake() }
    }

    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, 64) > 0 {}
    }
}
