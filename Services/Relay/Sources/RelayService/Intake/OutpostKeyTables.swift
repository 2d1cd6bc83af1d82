import MailwakeCore
import MailwakeCrypto
import Synchronization

/// Precomputed verify tables for the outpost keys that sign the most envelopes.
///
/// A table cuts the CPU of an envelope's signature check to under a quarter, but building one costs about a hundred
/// checks' worth and it holds 264 KiB, so only a busy key earns one: one under which `threshold` new envelopes were stored
/// within a window. At most `capacity` keys hold a table; a newly busy key takes the slot of one under which nothing
/// new was stored for a whole window, or waits for the next window. Tables are built one at a time on a thread of
/// their own, so no check waits for one. Only envelopes the durable write stored as new count, and only they keep a
/// table in use: forgeries never verify and replays are duplicates, so neither can earn a key a table or hold one.
final class OutpostKeyTables: Sendable {
    /// How many tables, and what earns one (the relay's defaults: `RelayConfiguration.verifyTables` and
    /// `verifyTableThreshold`).
    struct Configuration: Sendable {
        /// Keys that may hold a table at once (264 KiB each); 0 builds none.
        var capacity: Int
        /// New envelopes stored within one window that earn a key its table.
        var threshold: Int
        /// Milliseconds over which envelopes are counted; a table with no new envelope for this long may be given up.
        var windowMS: Int64 = 600_000
    }

    /// A key's verifier for one check: its table when it has one, otherwise the key.
    struct Verifier: P256.Signing.SignatureVerifier {
        let key: P256.Signing.PublicKey
        let table: P256.Signing.PrecomputedPublicKey?

        func isValidSignature(_ signature: P256.Signing.ECDSASignature, for message: [UInt8]) -> Bool {
            if let table { return table.isValidSignature(signature, for: message) }
            return key.isValidSignature(signature, for: message)
        }
    }

    private struct Entry {
        let table: P256.Signing.PrecomputedPublicKey
        var lastUsedMS: Int64
    }

    private struct State {
        var tables: [P256.Signing.PublicKey: Entry] = [:]
        var counts: [P256.Signing.PublicKey: Int] = [:]
        var windowStartMS: Int64
        /// Keys waiting for the builder, oldest first, and whether its thread runs.
        var pending: [P256.Signing.PublicKey] = []
        var building = false
    }

    /// Keys counted in one window at most; more are not counted until the next (bounds the memory a relay with
    /// very many quiet outposts spends here).
    static let countedKeysLimit = 8192

    let configuration: Configuration
    private let state: Mutex<State>
    private let clockMS: @Sendable () -> Int64
    private let startBuilder: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let metrics: RelayMetrics

    /// - Parameters:
    ///   - configuration: capacity, threshold and window.
    ///   - metrics: the relay's metrics (tables held, built, given up; checks with and without a table).
    ///   - clockMS: milliseconds of any monotonic-enough clock (the relay's, which tests move).
    ///   - startBuilder: runs the builder's loop; a thread of its own by default, inline in tests.
    init(configuration: Configuration, metrics: RelayMetrics, clockMS: @escaping @Sendable () -> Int64,
         startBuilder: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { OwnThread.start(name: "mw-key-tables", $0) }) {
        self.configuration = configuration
        self.metrics = metrics
        self.clockMS = clockMS
        self.startBuilder = startBuilder
        state = Mutex(State(windowStartMS: clockMS()))
    }

    /// The verifier for one signature check under `key`.
    func verifier(for key: P256.Signing.PublicKey) -> Verifier {
        let table = configuration.capacity > 0 ? state.withLock { $0.tables[key]?.table } : nil
        (table == nil ? metrics.verifiesWithKey : metrics.verifiesWithTable).increment()
        return Verifier(key: key, table: table)
    }

    /// Keys holding a table now.
    var count: Int { state.withLock { $0.tables.count } }

    /// Whether `key` holds a table now.
    func hasTable(_ key: P256.Signing.PublicKey) -> Bool { state.withLock { $0.tables[key] != nil } }

    /// Counts a new envelope stored under `key` (not a duplicate): keeps its table in use, or queues a build when the
    /// key has earned one.
    func stored(_ key: P256.Signing.PublicKey) {
        guard configuration.capacity > 0 else { return }
        let now = clockMS()
        let startBuilding = state.withLock { state -> Bool in
            // Through the index: the optional-chained subscript's modify allocated at every envelope.
            if let index = state.tables.index(forKey: key) {
                state.tables.values[index].lastUsedMS = now
                return false
            }
            if now - state.windowStartMS >= configuration.windowMS {
                state.counts.removeAll(keepingCapacity: true)
                state.windowStartMS = now
            }
            guard !state.pending.contains(key) else { return false }
            guard let counted = state.counts[key] ?? (state.counts.count < Self.countedKeysLimit ? 0 : nil) else { return false }
            guard counted + 1 >= configuration.threshold else {
                state.counts[key] = counted + 1
                return false
            }
            // Earned: build it if a slot is free, or if one idle table can be given up for it (one build at a time
            // relies on that, so no two builds count on the same idle table); otherwise count again.
            state.counts[key] = nil
            let room = state.tables.count + state.pending.count < configuration.capacity
            guard room || (state.pending.isEmpty && Self.idlest(state, now: now, window: configuration.windowMS) != nil)
            else { return false }
            state.pending.append(key)
            guard !state.building else { return false }
            state.building = true
            return true
        }
        if startBuilding { startBuilder { [self] in buildPending() } }
    }

    /// Builds the queued tables one after another, then ends.
    private func buildPending() {
        while let key = state.withLock({ state -> P256.Signing.PublicKey? in
            guard !state.pending.isEmpty else {
                state.building = false
                return nil
            }
            return state.pending[0]
        }) {
            let table = try? P256.Signing.PrecomputedPublicKey(key)
            let now = clockMS()
            let (added, gaveUp, held) = state.withLock { state -> (Bool, Bool, Int) in
                state.pending.removeFirst()
                guard let table else { return (false, false, state.tables.count) }
                var gaveUp = false
                if state.tables.count >= configuration.capacity {
                    guard let idlest = Self.idlest(state, now: now, window: configuration.windowMS) else {
                        return (false, false, state.tables.count)
                    }
                    state.tables[idlest] = nil
                    gaveUp = true
                }
                state.tables[key] = Entry(table: table, lastUsedMS: now)
                return (true, gaveUp, state.tables.count)
            }
            if added { metrics.verifyTablesBuilt.increment() }
            if gaveUp { metrics.verifyTablesGivenUp.increment() }
            metrics.verifyTables.set(Double(held))
        }
    }

    /// The key whose table last had a new envelope longest ago, when that was a whole window ago or more.
    private static func idlest(_ state: State, now: Int64, window: Int64) -> P256.Signing.PublicKey? {
        guard let (key, entry) = state.tables.min(by: { $0.value.lastUsedMS < $1.value.lastUsedMS }),
              now - entry.lastUsedMS >= window
        else { return nil }
        return key
    }
}
