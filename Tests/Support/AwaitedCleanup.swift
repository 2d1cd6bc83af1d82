public import Testing
import Synchronization

/// Teardown that finishes before a test is reported done.
///
/// Fixtures that start servers register their async `stop` with
/// `AwaitedCleanup.register`; a suite marked `.awaitedCleanup` runs every test
/// case inside a scope that awaits those stops after the body (even when it
/// throws). Unstructured `defer { Task { … } }` teardown races the end of the
/// process, which LeakSanitizer then reports as leaks.
public final class AwaitedCleanup: Sendable {
    @TaskLocal static var current: AwaitedCleanup?

    private let actions = Mutex<[@Sendable () async -> Void]>([])

    /// Registers `action` with the running test's scope; without one, runs it
    /// detached when the scope would have ended (best effort).
    public static func register(_ action: @escaping @Sendable () async -> Void) {
        if let bag = current {
            bag.actions.withLock { $0.append(action) }
        } else {
            Issue.record("a fixture needing awaited cleanup ran outside a suite marked .awaitedCleanup")
        }
    }

    func drain() async {
        let pending = actions.withLock { a -> [@Sendable () async -> Void] in
            defer { a.removeAll() }
            return a
        }
        for action in pending.reversed() { await action() }
    }
}

/// The trait that gives each test case of a suite an `AwaitedCleanup` scope.
public struct AwaitedCleanupTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil || !test.isSuite else {
            try await function()
            return
        }
        let bag = AwaitedCleanup()
        do {
            try await AwaitedCleanup.$current.withValue(bag) { try await function() }
        } catch {
            await bag.drain()
            throw error
        }
        await bag.drain()
    }
}

extension Trait where Self == AwaitedCleanupTrait {
    /// Awaits fixture teardown (servers, pools) before each test case ends.
    public static var awaitedCleanup: Self { AwaitedCleanupTrait() }
}
