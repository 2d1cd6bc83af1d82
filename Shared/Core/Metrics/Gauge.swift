import Synchronization

/// A value that goes up and down.
public final class Gauge: Sendable {
    private let value = Mutex<Double>(0)

    init() {}

    public func set(_ v: Double) { value.withLock { $0 = v } }
    public func increment(by amount: Double = 1) { value.withLock { $0 += amount } }
    public func decrement(by amount: Double = 1) { value.withLock { $0 -= amount } }

    /// The current value.
    public var current: Double { value.withLock { $0 } }
}
