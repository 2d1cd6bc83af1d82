import Foundation

/// When an open-loop load client sends each of its requests: offsets from the start, in nanoseconds, not decreasing.
public struct ArrivalSchedule: Sendable, Equatable {
    /// How the requests are spread over time.
    public enum Pattern: String, Sendable, CaseIterable {
        /// One every 1/rate seconds exactly: one sender's steady clock, and the case where no two requests arrive
        /// together.
        case even
        /// Independent arrivals at the rate (exponential gaps, the model of many senders that do not coordinate,
        /// such as outposts): some requests arrive together, some gaps are long.
        case poisson
    }

    public let offsetsNS: [Int64]

    /// - Parameters:
    ///   - count: requests.
    ///   - rate: requests a second on average (1…10⁹).
    ///   - pattern: how they are spread.
    ///   - seed: the random gaps' seed (`poisson`), so two runs offer the same load.
    public init(count: Int, rate: Int, pattern: Pattern, seed: UInt64 = 0x6d61_696c_7761_6b65) {
        let rate = Double(min(max(rate, 1), 1_000_000_000))
        let count = max(count, 0)
        switch pattern {
        case .even:
            offsetsNS = (0..<count).map { Int64((Double($0) * 1e9 / rate).rounded()) }
        case .poisson:
            // SplitMix64 draws, each an exponential gap from a uniform draw in (0, 1]; the gaps are then scaled so that
            // the count spans count/rate seconds exactly, as the even pattern does: the same offered rate, arrivals
            // independent within it.
            var state = seed
            var gaps: [Double] = []
            gaps.reserveCapacity(count)
            for _ in 0..<count {
                state &+= 0x9e37_79b9_7f4a_7c15
                var z = state
                z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
                z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
                z ^= z >> 31
                gaps.append(-log(Double((z >> 11) + 1) / Double(UInt64(1) << 53)))
            }
            let scale = Double(count) * 1e9 / rate / max(gaps.reduce(0, +), .leastNormalMagnitude)
            var at = 0.0
            offsetsNS = gaps.map { gap in
                defer { at += gap * scale }
                return Int64(at.rounded())
            }
        }
    }
}
