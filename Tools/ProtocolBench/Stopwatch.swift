import Foundation

/// Runs an operation repeatedly on the calling thread and reports its rate.
struct Stopwatch {
    /// The measurement of one operation.
    struct Result {
        let name: String
        let iterations: Int
        let seconds: Double
        var opsPerSecond: Double { Double(iterations) / seconds }
        var microsecondsPerOp: Double { seconds * 1_000_000 / Double(iterations) }
    }

    /// How long each operation is timed.
    let duration: Double

    /// Warms `body` up, then runs it in batches until `duration` has passed.
    func measure(_ name: String, _ body: () throws -> Void) rethrows -> Result {
        for _ in 0..<50 { try body() }
        var iterations = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed: UInt64 = 0
        let limit = UInt64(duration * 1e9)
        while elapsed < limit {
            for _ in 0..<32 { try body() }
            iterations += 32
            elapsed = DispatchTime.now().uptimeNanoseconds - start
        }
        return Result(name: name, iterations: iterations, seconds: Double(elapsed) / 1e9)
    }
}
