import Synchronization

/// A monotonically increasing count.
public final class Counter: Sendable {
    private let value = Atomic<Int64>(0)

    init() {}

    /// Adds `amount` (never negative).
    public func increment(by amount: Int64 = 1) {
        precondition(amount >= 0, "a counter only goes up")
        value.add(amount, ordering: .relaxed)
    }

    /// The current count.
    public var current: Int64 { value.load(ordering: .relaxed) }
}
