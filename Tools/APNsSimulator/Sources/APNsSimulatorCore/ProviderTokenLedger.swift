import Synchronization

/// Which provider tokens each team and key has used, and Apple's rule that a
/// provider replaces its token at most once every 20 minutes
/// (`TooManyProviderTokenUpdates`, 429).
///
/// A token is adopted the first time it is seen; a different token for the
/// same team and key is a refresh. One that arrives sooner than
/// `minimumUpdateInterval` after the current one was adopted is refused and
/// not adopted (the current one stays). Tokens adopted earlier stay usable
/// until they expire, as at Apple. Times are the simulator's clock.
public final class ProviderTokenLedger: Sendable {
    /// The counts of one team and key.
    public struct Counts: Sendable, Hashable {
        public var teamID: String
        public var keyID: String
        /// Distinct tokens adopted.
        public var distinctTokens = 0
        /// Adoptions that replaced an earlier token.
        public var refreshes = 0
        /// New tokens refused as TooManyProviderTokenUpdates.
        public var tooManyUpdates = 0
        /// Requests carrying a token adopted earlier, after a newer one was adopted.
        public var requestsWithReplacedToken = 0
        /// The adoption time of the current token, in milliseconds.
        public var currentSinceMS: Int64 = 0
    }

    private struct Entry {
        var counts: Counts
        var current = ""
        var adopted: Set<String> = []
    }

    /// Seconds a team's token must have been in use before another replaces it; 0 turns the rule off.
    public let minimumUpdateInterval: Int64
    private let entries = Mutex<[String: Entry]>([:])

    public init(minimumUpdateInterval: Int64) {
        self.minimumUpdateInterval = minimumUpdateInterval
    }

    /// Records one verified token at `nowMS`; false when Apple would refuse it as TooManyProviderTokenUpdates.
    public func admit(jwt: String, teamID: String, keyID: String, nowMS: Int64) -> Bool {
        entries.withLock { entries in
            let key = teamID + "\u{0}" + keyID
            var entry = entries[key] ?? Entry(counts: Counts(teamID: teamID, keyID: keyID))
            defer { entries[key] = entry }
            if jwt == entry.current { return true }
            if entry.adopted.contains(jwt) {
                entry.counts.requestsWithReplacedToken += 1
                return true
            }
            if !entry.current.isEmpty, minimumUpdateInterval > 0, nowMS - entry.counts.currentSinceMS < minimumUpdateInterval * 1000 {
                entry.counts.tooManyUpdates += 1
                return false
            }
            if !entry.current.isEmpty { entry.counts.refreshes += 1 }
            // Tokens live an hour: a few hundred at most per team, even at one refresh every 20 minutes for days.
            if entry.adopted.count >= 1024 { entry.adopted.removeAll(keepingCapacity: true) }
            entry.adopted.insert(jwt)
            entry.current = jwt
            entry.counts.distinctTokens += 1
            entry.counts.currentSinceMS = nowMS
            return true
        }
    }

    /// The counts of every team and key, sorted.
    public var counts: [Counts] {
        entries.withLock { $0.values.map(\.counts) }.sorted { ($0.teamID, $0.keyID) < ($1.teamID, $1.keyID) }
    }

    /// Forgets every token (the counts start again).
    public func reset() { entries.withLock { $0.removeAll() } }
}
