import Dispatch
import MailwakeCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A task executor with a few threads of its own (half the cores, at least one), first in, first out.
///
/// For tests that compute for seconds or call blocking code synchronously:
/// under `.offPool` they run here instead of holding one of the cooperative
/// pool's threads, where every async test of the process (HTTP handlers,
/// services, polls) would queue behind them. The lane is narrow on purpose:
/// a thread per job would give hundreds of CPU-bound threads, and the kernel
/// would then share the cores among them and starve the pool all the same.
/// Nothing on the lane may wait for another job of the lane.
@available(macOS 15.0, *)
final class OwnThreadExecutor: TaskExecutor, Sendable {
    static let shared = OwnThreadExecutor(threads: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) / 2))

    private let queue = Mutex<(jobs: [UnownedJob], head: Int)>(([], 0))
    /// One signal per queued job; waited for on the lane's own threads only.
    private let wakeup = DispatchSemaphore(value: 0)

    private init(threads: Int) {
        for i in 0..<threads {
            OwnThread.start(name: "mw-test-offpool\(i)") { [self] in
                while true {
                    wakeup.wait()
                    guard let job = queue.withLock({ q -> UnownedJob? in
                        guard q.head < q.jobs.count else { return nil }
                        defer {
                            q.head += 1
                            if q.head > 1024, q.head * 2 > q.jobs.count {
                                q.jobs.removeFirst(q.head)
                                q.head = 0
                            }
                        }
                        return q.jobs[q.head]
                    }) else { continue }
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        wakeup.signal()
    }
}
