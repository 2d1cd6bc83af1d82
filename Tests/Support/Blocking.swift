import MailwakeCore
import Testing

/// Runs blocking work (waiting for processes, socket reads, sleeps) on a thread of its own.
///
/// The one helper for tests: neither Swift's cooperative pool nor Dispatch's
/// global queues (on Linux the same worker threads) may be blocked, since on
/// a 2-core machine two blocked workers stall every async test of the process:
/// HTTP handlers stop answering, services never start, polls never wake.
/// `.offPool` (a suite trait) runs whole tests that compute or block for long
/// on threads of their own.
public enum Blocking {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await OwnThread.run(name: threadName, body)
    }

    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await OwnThread.run(name: threadName, body)
    }

    static let threadName = "mw-test-block"

    /// Whether the calling thread is a Dispatch worker: one of the cooperative
    /// pool's or of a global queue's (Dispatch names them after the root
    /// queue, ending in `-qos`; overcommit workers for serial queues end in
    /// `overcommit` and are not counted).
    public static var onPoolThread: Bool { OwnThread.currentName.hasSuffix("-qos") }

    /// Records an issue when `what`, a blocking call, runs on a pool thread:
    /// wrap it in `Blocking.run`, or mark its suite `.offPool`.
    public static func requireOffPool(_ what: @autoclosure () -> String) {
        guard onPoolThread else { return }
        Issue.record("""
            \(what()) blocks a cooperative-pool thread (\(OwnThread.currentName)): run it in Blocking.run or mark the suite .offPool
            """)
    }
}

/// Runs blocking work on a thread of its own (the same as `Blocking.run`).
public func runOffPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await Blocking.run(body)
}
