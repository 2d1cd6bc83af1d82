import MailwakeCore
import Synchronization

/// A small time-bounded cache with one load in flight per key: concurrent
/// misses for the same key wait for the same load instead of each asking.
final class TTLCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private enum Slot {
        case ready(Value, expiresAt: ContinuousClock.Instant)
        case loading(Task<Value, any Error>)
    }

    private let ttlOf: @Sendable (Value) -> Duration
    private let maxEntries: Int
    private let slots = Mutex<[Key: Slot]>([:])

    /// - Parameters:
    ///   - ttl: how long a loaded value is reused (zero: never).
    ///   - maxEntries: beyond this the cache drops expired entries, then a tenth of the rest.
    convenience init(ttl: Duration, maxEntries: Int = 100_000) {
        self.init(maxEntries: maxEntries) { _ in ttl }
    }

    /// A cache whose entries live as long as `ttl` says for each value (zero: not kept).
    init(maxEntries: Int = 100_000, ttl: @escaping @Sendable (Value) -> Duration) {
        ttlOf = ttl
        self.maxEntries = maxEntries
    }

    private enum Lookup {
        case hit(Value)
        case wait(Task<Value, any Error>)
    }

    /// The cached value if there is one still fresh (counted as a hit), without building a load.
    ///
    /// The hot paths try this first: the escaping `load` closure of
    /// `value(for:hit:miss:load:)` is a heap allocation at every call, hit or miss.
    func cached(_ key: Key, hit: Counter? = nil) -> Value? {
        let now = ContinuousClock.now
        let value: Value? = slots.withLock { slots in
            guard case .ready(let value, let expiresAt) = slots[key], expiresAt > now else { return nil }
            return value
        }
        if value != nil { hit?.increment() }
        return value
    }

    /// The cached value, or the result of `load` (shared with concurrent callers).
    func value(for key: Key, hit: Counter? = nil, miss: Counter? = nil,
               load: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let now = ContinuousClock.now
        let lookup: Lookup = slots.withLock { slots in
            switch slots[key] {
            case .ready(let value, let expiresAt) where expiresAt > now:
                return .hit(value)
            case .loading(let task):
                return .wait(task)
            default:
                let task = Task { try await load() }
                if slots.count >= maxEntries { Self.evict(&slots, now: now, limit: maxEntries) }
                slots[key] = .loading(task)
                return .wait(task)
            }
        }
        switch lookup {
        case .hit(let value):
            hit?.increment()
            return value
        case .wait(let task):
            miss?.increment()
            do {
                let value = try await task.value
                slots.withLock { slots in
                    guard case .loading = slots[key] else { return }
                    let ttl = ttlOf(value)
                    slots[key] = ttl > .zero ? .ready(value, expiresAt: .now + ttl) : nil
                }
                return value
            } catch {
                slots.withLock { slots in
                    if case .loading = slots[key] { slots[key] = nil }
                }
                throw error
            }
        }
    }

    /// Stores a value learnt elsewhere.
    func store(_ value: Value, for key: Key) {
        let ttl = ttlOf(value)
        guard ttl > .zero else { return }
        slots.withLock { $0[key] = .ready(value, expiresAt: .now + ttl) }
    }

    /// Forgets `key` (APNs said its token is gone, a pairing ended).
    func remove(_ key: Key) {
        _ = slots.withLock { $0.removeValue(forKey: key) }
    }

    private static func evict(_ slots: inout [Key: Slot], now: ContinuousClock.Instant, limit: Int) {
        slots = slots.filter { _, slot in
            if case .ready(_, let expiresAt) = slot { return expiresAt > now }
            return true
        }
        // Still full of live entries: drop a tenth, in the dictionary's
        // (arbitrary) order, rather than everything, so a cache sized below
        // the working set loses a few entries per overflow, not all of them.
        guard slots.count >= limit else { return }
        for key in Array(slots.keys.prefix(max(1, slots.count - limit * 9 / 10))) { slots.removeValue(forKey: key) }
    }
}
