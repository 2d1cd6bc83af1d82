public import Testing

/// The trait that runs each test case of a suite on the off-pool lane, not the cooperative pool.
///
/// For suites whose tests compute for seconds (pathological documents, the
/// XSS corpus) or call blocking harness code synchronously (making
/// certificates with `openssl`): with two cores the pool has two threads, and
/// such tests at once would stall every other async test of the process.
public struct OffPoolTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil || !test.isSuite else {
            try await function()
            return
        }
        if #available(macOS 15.0, *) {
            try await withTaskExecutorPreference(OwnThreadExecutor.shared) { try await function() }
        } else {
            try await function()
        }
    }
}

extension Trait where Self == OffPoolTrait {
    /// Runs the test (or every test of the suite) on the off-pool lane (`OwnThreadExecutor`).
    public static var offPool: Self { OffPoolTrait() }
}
