import MailwakeProtocol
import Synchronization

/// The per-token behaviours in force, keyed by lower-case token.
public final class BehaviourTable: Sendable {
    private let entries = Mutex<[String: Behaviour]>([:])
    /// Kept beside the table so that requests skip the lock (and the
    /// lower-casing) while no behaviour is set, which is the common case.
    private let count = Atomic<Int>(0)

    public init() {}

    /// Sets (or replaces) the behaviour of `behaviour.token`.
    public func set(_ behaviour: Behaviour) {
        var b = behaviour
        b.token = behaviour.token.lowercased()
        entries.withLock { e in
            e[b.token] = b
            count.store(e.count, ordering: .relaxed)
        }
    }

    /// Removes every behaviour.
    public func removeAll() {
        entries.withLock { e in
            e.removeAll()
            count.store(0, ordering: .relaxed)
        }
    }

    /// The behaviour for one request to `token`, used up by one when it has `times`.
    public func take(token: String) -> Behaviour? {
        guard count.load(ordering: .relaxed) > 0 else { return nil }
        let key = token.lowercased()
        return entries.withLock { e -> Behaviour? in
            guard var b = e[key] else { return nil }
            if let times = b.times {
                if times <= 1 { e[key] = nil } else { b.times = times - 1; e[key] = b }
                count.store(e.count, ordering: .relaxed)
                b.times = times
            }
            return b
        }
    }

    /// The behaviours in force, by token.
    public var all: [Behaviour] { entries.withLock { Array($0.values) }.sorted { $0.token < $1.token } }

    /// `{"behaviours":[...]}`.
    func json() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.beginArray("behaviours")
        for b in all { b.write(to: &w) }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
