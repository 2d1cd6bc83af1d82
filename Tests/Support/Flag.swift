import Synchronization

/// A flag shared between tasks (and threads).
public final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    public init() {}

    public func set() { value.store(true, ordering: .releasing) }
    public var isSet: Bool { value.load(ordering: .acquiring) }

    /// Waits (without blocking a thread) until set, at most `timeout`; throws a `TestHarnessError` saying so after it.
    public func wait(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !isSet {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("the flag was not set within \(timeout)") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
