#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ServiceGroup {
    public struct Configuration: Sendable {
        /// How long each service gets to stop after it is cancelled.
        public var gracePeriod: Duration
        /// Signals that start a graceful shutdown (a second one abandons the
        /// services still stopping). Empty: no signal handling (tests,
        /// embedding).
        public var signals: [Int32]

        /// - Parameter signals: nil means SIGTERM and SIGINT.
        public init(gracePeriod: Duration = .seconds(10), signals: [Int32]? = nil) {
            self.gracePeriod = gracePeriod
            self.signals = signals ?? [SIGTERM, SIGINT]
        }
    }
}
