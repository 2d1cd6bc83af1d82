import Synchronization

/// A flag shared between tasks (and threads).
public final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    public init() {}

    public func set() { value.store(true, ordering: .releasing) }
    public var isSet: Bool { value.load(ordering: .acquiring) }

    /// Waits (without blocking a thread) until set, at most `timeout`.
    public func wait(timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !isSet {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
