import Foundation
import MailwakeCore

/// Runs async work from a thread of our own (never a cooperative-pool
/// thread) and waits for it: watcher threads use it to reach the store.
enum BlockingBridge {
    static func wait<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.result = await Result { try await operation() }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    // Safe to share: the task writes `result` before it signals and the caller reads it only after the wait returns.
    private final class ResultBox<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }
}
