extension PostgresClient {
    /// How `waitUntilReachable` retries at start: a first delay that doubles
    /// up to a cap, within a bounded total.
    public struct StartupRetry: Sendable, Hashable {
        /// Delay after the first failed attempt. Default 0.5 s.
        public var initialDelay: Duration
        /// Longest delay between attempts. Default 10 s.
        public var maxDelay: Duration
        /// Time after which the last failure is thrown; zero means one attempt. Default 2 minutes.
        public var total: Duration

        public init(initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(10), total: Duration = .seconds(120)) {
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
            self.total = total
        }
    }
}
