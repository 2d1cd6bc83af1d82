import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A serial executor that runs jobs on one dedicated thread.
///
/// SQLite calls block (disk I/O, busy waits up to the timeout), so an actor
/// that owns a connection runs on this thread instead of the cooperative
/// pool. Jobs run in the order they were enqueued.
final class SQLiteThreadExecutor: SerialExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var stopping = false
        var thread: pthread_t?
    }

    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)

    /// Starts the thread.
    init() {
        let context = Unmanaged.passRetained(StartContext(executor: self)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<StartContext>.fromOpaque(raw!).takeRetainedValue()
            context.executor.runLoop()
            return nil
        }, context)
        precondition(rc == 0, "cannot start the SQLite thread (pthread_create \(rc))")
        pthread_detach(thread)
        state.withLock { $0.thread = thread }
    }

    private final class StartContext {
        let executor: SQLiteThreadExecutor
        init(executor: SQLiteThreadExecutor) { self.executor = executor }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        state.withLock { $0.jobs.append(unowned) }
        wakeup.signal()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        let thread = state.withLock { $0.thread }
        precondition(thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false, "not on the SQLite thread")
    }

    /// Lets the thread finish the queued jobs and exit.
    func shutdown() {
        state.withLock { $0.stopping = true }
        wakeup.signal()
    }

    private func runLoop() {
        while true {
            wakeup.wait()
            let (batch, stopping) = state.withLock { s in
                defer { s.jobs.removeAll(keepingCapacity: true) }
                return (s.jobs, s.stopping)
            }
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
            if stopping, state.withLock({ $0.jobs.isEmpty }) { return }
        }
    }
}
