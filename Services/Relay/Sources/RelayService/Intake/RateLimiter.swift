import Synchronization

/// Token buckets per key (outpost id): `rate` a second on average, `burst` at once.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }
    private let rate: Double
    private let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])

    init(rate: Int, burst: Int) {
        self.rate = Double(rate)
        self.burst = Double(max(burst, 1))
    }

    /// Takes one token; nil when granted, else the seconds until one is free.
    func take(_ key: String) -> Int? {
        let now = ContinuousClock.now
        return buckets.withLock { buckets in
            if buckets.count > 100_000 { buckets.removeAll() }  // bounded memory; full buckets lose nothing
            var b = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = (now - b.updated)
            b.tokens = min(burst, b.tokens + rate * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            b.updated = now
            defer { buckets[key] = b }
            guard b.tokens >= 1 else { return max(1, Int(((1 - b.tokens) / rate).rounded(.up))) }
            b.tokens -= 1
            return nil
        }
    }
}
