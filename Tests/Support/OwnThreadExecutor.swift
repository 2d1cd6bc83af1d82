import MailwakeCore

/// A task executor that runs every job on a new thread of its own.
///
/// For tests that compute for seconds or call blocking code synchronously:
/// under `.offPool` they run here instead of holding one of the cooperative
/// pool's few threads.
@available(macOS 15.0, *)
final class OwnThreadExecutor: TaskExecutor {
    static let shared = OwnThreadExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        OwnThread.start(name: "mw-test-offpool") { job.runSynchronously(on: executor) }
    }
}
