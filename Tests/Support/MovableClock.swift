import Foundation
import Synchronization

/// A Unix-millisecond clock that runs with real time and that a test moves forward.
public final class MovableClock: Sendable {
    private let offsetMS = Atomic<Int64>(0)

    public init() {}

    /// Now, in Unix milliseconds, plus every `advance` so far.
    public func nowMS() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) + offsetMS.load(ordering: .acquiring)
    }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        offsetMS.add(ms, ordering: .acquiringAndReleasing)
    }

    /// The clock as the closure the services take.
    public var closure: @Sendable () -> Int64 { { [self] in nowMS() } }
}
