import Foundation

/// Runs blocking work (socket reads, child processes) on its own thread.
///
/// Neither Swift's cooperative pool nor GCD's width-limited global queues may
/// be blocked by tests: on a 2-core machine a few blocked reads would starve
/// the server under test.
public enum Blocking {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { c in
            let thread = Thread { c.resume(returning: body()) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in
            let thread = Thread {
                do { c.resume(returning: try body()) } catch { c.resume(throwing: error) }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
