import Synchronization

/// A distribution of observations in cumulative buckets.
public final class Histogram: Sendable {
    struct State {
        var counts: [Int64]
        var sum: Double = 0
        var count: Int64 = 0
    }

    /// Upper bounds, ascending, without `+Inf`.
    let bounds: [Double]
    private let state: Mutex<State>

    init(bounds: [Double]) {
        self.bounds = bounds
        state = Mutex(State(counts: [Int64](repeating: 0, count: bounds.count)))
    }

    /// Records one observation (seconds for durations, bytes for sizes).
    public func observe(_ v: Double) {
        let index = bounds.firstIndex { v <= $0 }
        state.withLock { s in
            if let index { s.counts[index] += 1 }
            s.sum += v
            s.count += 1
        }
    }

    /// Cumulative bucket counts (one per bound), the sum and the count.
    func snapshot() -> (cumulative: [Int64], sum: Double, count: Int64) {
        state.withLock { s in
            var running: Int64 = 0
            let cumulative = s.counts.map { running += $0; return running }
            return (cumulative, s.sum, s.count)
        }
    }

    /// Default buckets for request latencies in seconds (1 ms … 10 s).
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Default buckets for sizes in bytes (64 B … 1 MiB).
    public static let sizeBuckets: [Double] = [64, 256, 1024, 4096, 16384, 65536, 262_144, 1_048_576]
}
