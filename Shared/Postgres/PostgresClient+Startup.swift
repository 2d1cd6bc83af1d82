import MailwakeCore

extension PostgresClient {
    /// Waits until the server answers, retrying failed connections with
    /// backoff (a PostgreSQL that is still starting, a container not yet
    /// scheduled), so a service can start before its database.
    ///
    /// Each failed attempt is logged once, as a warning with the attempt
    /// number, the delay before the next one and libpq's message (never the
    /// password). Errors other than connection failures and time-outs (a bad
    /// configuration, cancellation) end the wait at once.
    ///
    /// - Parameter retry: delays and the total bound.
    /// - Throws: the last connection error once `retry.total` has passed.
    public func waitUntilReachable(_ retry: StartupRetry = .init()) async throws {
        let deadline = ContinuousClock.now + retry.total
        var delay = retry.initialDelay
        var attempt = 0
        // The connections' own "connect failed" warning would repeat the line logged here.
        health.setQuietConnectFailures(true)
        defer { health.setQuietConnectFailures(false) }
        while true {
            attempt += 1
            do {
                try await query("SELECT 1")
                if attempt > 1 { logger.info("database reachable", ["attempt": .int(attempt)]) }
                return
            } catch let error as PostgresError where error.code == .connection || error.code == .timeout {
                let now = ContinuousClock.now
                guard now < deadline else {
                    logger.error("database not reachable; giving up",
                                 ["attempt": .int(attempt), "waited_seconds": .int(retry.total.components.seconds),
                                                                        "error": .string(error.message)])
                    throw PostgresError(.connection,
                                        "PostgreSQL not reachable within \(retry.total) (\(attempt) attempts): \(error.message)")
                }
                let pause = min(delay, deadline - now)
                logger.warning("database not reachable yet; retrying", [
                    "attempt": .int(attempt), "retry_in_seconds": .double((pause / .milliseconds(1)).rounded() / 1000),
                    "error": .string(error.message),
                ])
                try await Task.sleep(for: pause)
                delay = min(delay * 2, retry.maxDelay)
            }
        }
    }
}
