import MailwakeCore

/// Checks every `interval` that accounts answers the relay's internal API:
/// `mailwake_relay_accounts_reachable` (1 or 0), a failures counter, and one
/// log line when the answer changes. Not a readiness condition: a relay whose
/// accounts is away still accepts envelopes it can authorize from its cache,
/// and a load balancer must not take every instance out for it.
struct AccountsReachability: Service {
    var name: String { "accounts-reachability" }
    let accounts: AccountsClient
    let interval: Duration
    let metrics: RelayMetrics
    let logger: Logger

    func run() async throws {
        var wasReachable: Bool?
        while !Task.isCancelled {
            let reachable = await accounts.isReachable()
            if Task.isCancelled { break }
            metrics.accountsReachable.set(reachable ? 1 : 0)
            if !reachable { metrics.accountsCheckFailures.increment() }
            if reachable != wasReachable {
                if reachable {
                    if wasReachable != nil { logger.notice("accounts reachable again", ["url": .string(accounts.configuration.url)]) }
                } else {
                    logger.warning("accounts unreachable", ["url": .string(accounts.configuration.url)])
                }
                wasReachable = reachable
            }
            try? await Task.sleep(for: interval)
        }
    }
}
