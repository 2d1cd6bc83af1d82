/// Percentiles of a sample, in its unit.
public struct Percentiles {
    public let sorted: [Double]

    public init(_ values: [Double]) { sorted = values.sorted() }

    public func at(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    /// p50, p90, p99 and max, rounded to 0.1.
    public var summary: [String: Double] {
        ["p50": round1(at(0.5)), "p90": round1(at(0.9)), "p99": round1(at(0.99)), "max": round1(at(1))]
    }
}

/// `x` rounded to one decimal.
public func round1(_ x: Double) -> Double { (x * 10).rounded() / 10 }
/// `x` rounded to two decimals, for ratios.
public func round2(_ x: Double) -> Double { (x * 100).rounded() / 100 }
