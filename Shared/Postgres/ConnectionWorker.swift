import Foundation
import MailwakeCore

/// A thread that owns one `RawConnection` and runs the jobs handed to it, in
/// order. libpq blocks; this keeps the blocking off Swift's cooperative pool.
/// Jobs come in through a lock and condition; each job resumes its caller's
/// continuation.
// Safe to share: the job queue and flags are guarded by the lock and condition; the connection is used only by the worker thread.
final class ConnectionWorker: @unchecked Sendable {
    typealias Job = @Sendable (RawConnection) -> Void

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var stopping = false
    private var onExit: [@Sendable () -> Void] = []
    private var exited = false

    /// Only touched on the worker thread (and before it starts).
    private let raw: RawConnection
    let canceller: StatementCanceller
    let id: Int

    init(id: Int, raw: RawConnection, name: String) {
        self.id = id
        self.raw = raw
        self.canceller = raw.canceller
        let thread = Thread { [self] in
            // Foundation on Linux keeps `Thread.name` to itself: name the
            // thread for the kernel too, so that top, perf and /proc tell
            // connection threads from the Swift pool (at most 15 bytes).
            Self.nameCurrentThread(name)
            self.loop()
        }
        thread.name = name
        thread.stackSize = 512 * 1024
        thread.start()
    }

    /// Names the calling thread for the kernel (`/proc/thread-self/comm`, 15 bytes at most); best effort.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Queues a job; false when the worker is stopping (the job will not run).
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return false
        }
        jobs.append(job)
        condition.unlock()
        // After the unlock: the woken worker's first step is to take the lock, which would still be held here.
        condition.signal()
        return true
    }

    /// Runs the queued jobs, closes the connection, ends the thread, then calls `done`.
    func shutdown(_ done: @escaping @Sendable () -> Void = {}) {
        condition.lock()
        if exited {
            condition.unlock()
            done()
            return
        }
        stopping = true
        onExit.append(done)
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while head == jobs.count && !stopping { condition.wait() }
            if head == jobs.count {
                condition.unlock()
                break
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job(raw)
        }
        raw.disconnect()
        condition.lock()
        exited = true
        let callbacks = onExit
        onExit = []
        condition.unlock()
        callbacks.forEach { $0() }
    }

    /// Runs `body` on the worker thread and returns its result to the caller.
    ///
    /// - Parameters:
    ///   - lease: the lease the work belongs to (reconnects happen only at a lease's start).
    ///   - cancellable: whether task cancellation cancels the statement (`PQcancel`).
    func perform<T: Sendable>(
        lease: UInt64,
        cancellable: Bool = true,
        _ body: @escaping @Sendable (RawConnection) throws(PostgresError) -> T
    ) async throws -> T {
        let token = JobToken()
        let canceller = self.canceller
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let accepted = submit { raw in
                    let token = cancellable ? token : nil
                    continuation.resume(with: Self.run(body, on: raw, lease: lease, token: token, canceller: canceller))
                }
                if !accepted { continuation.resume(throwing: PostgresError(.poolClosed, "the connection pool is closed")) }
            }
        } onCancel: {
            guard cancellable else { return }
            token.cancel()
            canceller.cancel(ifRunning: token)
        }
    }

    /// Runs `body` on the worker thread and gives its result to `completion` there, without a task: `completion` must
    /// not block (the connection's next jobs wait for it). Not cancellable.
    ///
    /// - Parameters:
    ///   - lease: the lease the work belongs to (reconnects happen only at a lease's start).
    func perform<T: Sendable>(
        lease: UInt64,
        _ body: @escaping @Sendable (RawConnection) throws(PostgresError) -> T,
        then completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let canceller = self.canceller
        let accepted = submit { raw in completion(Self.run(body, on: raw, lease: lease, token: nil, canceller: canceller)) }
        if !accepted { completion(.failure(PostgresError(.poolClosed, "the connection pool is closed"))) }
    }

    /// One job's statements on the worker thread: the lease entered, a cancellation honoured (when `token` is given),
    /// a commit the synchronous standby may not have refused.
    private static func run<T>(_ body: (RawConnection) throws(PostgresError) -> T, on raw: RawConnection, lease: UInt64,
                               token: JobToken?, canceller: StatementCanceller) -> Result<T, any Error> {
        if let token, token.isCancelled { return .failure(CancellationError()) }
        do throws(PostgresError) {
            try raw.enter(lease: lease)
            let value: T
            do {
                if let token { canceller.begin(token) }
                defer { if token != nil { canceller.end() } }
                // A cancellation that arrived before `begin` found nothing to cancel: honour it here.
                if let token, token.isCancelled { return .failure(CancellationError()) }
                _ = raw.notices.takeUnreplicatedCommit()  // only what this job's statements report
                value = try body(raw)
            }
            if raw.notices.takeUnreplicatedCommit() {
                // Committed here, perhaps not on the synchronous standby: lost if this server fails now.
                throw PostgresError(.connection,
                                    "the server stopped waiting for the synchronous standby (the statement was cancelled); " +
                                    "the commit may not survive a failover")
            }
            raw.afterStatement()
            return .success(value)
        } catch {
            raw.afterStatement()
            let cancelled = token?.isCancelled == true && error.sqlState == PostgresError.SQLState.queryCanceled
            return .failure(cancelled ? CancellationError() : error)
        }
    }

    /// Ends a lease on the worker thread (rolls back an open transaction).
    func endLease(_ lease: UInt64) {
        submit { raw in raw.endLease(lease) }
    }
}
