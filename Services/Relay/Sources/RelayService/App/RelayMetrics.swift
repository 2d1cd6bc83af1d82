import MailwakeCore

/// The relay's own metrics (`mailwake_relay_*`), created once.
struct RelayMetrics: Sendable {
    let registry: MetricsRegistry
    let accepted: Counter
    let duplicates: Counter
    /// Envelopes checked on the listener's thread (pairing and accounts answers cached).
    let checkedOnListener: Counter
    /// Envelopes checked on a task (something to load first).
    let checkedOnTask: Counter
    let queueDepth: Gauge
    let queueOldestSeconds: Gauge
    let queueDue: Gauge
    let accountsReachable: Gauge
    let accountsCheckFailures: Counter
    let acceptToSent: Histogram
    let sentToDisplayed: Histogram
    let acceptToDisplayed: Histogram
    let receipts: [String: Counter]
    let deliveries: [String: Counter]
    let claimBatch: Histogram
    let diagnosticsSent: Counter
    let liveActivityAlerts: Counter
    /// Attempts sent without a task (a delivery intake had just checked) or on one of the worker's tasks.
    let attemptsWithoutTask: Counter
    let attemptsOnTask: Counter
    /// Envelope signature checks with the outpost key's precomputed table, and with the key alone.
    let verifiesWithTable: Counter
    let verifiesWithKey: Counter
    /// Outpost keys holding a precomputed table; tables built; tables given up for a busier key.
    let verifyTables: Gauge
    let verifyTablesBuilt: Counter
    let verifyTablesGivenUp: Counter

    init(_ registry: MetricsRegistry) {
        self.registry = registry
        accepted = registry.counter("mailwake_relay_envelopes_accepted_total", help: "Envelopes answered 202 and stored.")
        let checkedHelp = "Envelopes checked on the public listener's thread (refused there, or everything they needed was cached) " +
                          "or on a task (the pairing or an accounts answer had to be loaded first)."
        checkedOnListener = registry.counter("mailwake_relay_envelope_checks_total", help: checkedHelp, labels: ["on": "listener"])
        checkedOnTask = registry.counter("mailwake_relay_envelope_checks_total", help: checkedHelp, labels: ["on": "task"])
        let attemptsHelp = "Delivery attempts sent without a task (intake had just checked the delivery: answered and recorded " +
                           "on the APNs client's thread) or on a worker task (claimed from the queue, a retry, a Live Activity)."
        attemptsWithoutTask = registry.counter("mailwake_relay_delivery_attempts_total", help: attemptsHelp, labels: ["on": "callback"])
        attemptsOnTask = registry.counter("mailwake_relay_delivery_attempts_total", help: attemptsHelp, labels: ["on": "task"])
        liveActivityAlerts = registry.counter("mailwake_relay_live_activity_alerts_total",
                                              help: "Live Activity starts APNs refused for the push-to-start token (TooManyRequests) " +
                                                    "and sent as time-sensitive alerts instead.")
        duplicates = registry.counter("mailwake_relay_envelopes_duplicate_total",
                                      help: "Envelopes submitted again with the same bytes (answered as the first time).")
        queueDepth = registry.gauge("mailwake_relay_queue_depth", help: "Deliveries queued or being sent (all instances).")
        queueOldestSeconds = registry.gauge("mailwake_relay_queue_oldest_age_seconds",
                                            help: "How long the longest-waiting due delivery has been due (0 when none is due); " +
                                                  "deliveries waiting out a retry delay are not counted.")
        queueDue = registry.gauge("mailwake_relay_queue_due",
                                  help: "Deliveries due now: queued or with an ended lease, not waiting out a retry delay (all " +
                                        "instances).")
        accountsReachable = registry.gauge("mailwake_relay_accounts_reachable",
                                           help: "1 when the last check of accounts' internal API succeeded, 0 when it failed.")
        accountsCheckFailures = registry.counter("mailwake_relay_accounts_check_failures_total",
                                                 help: "Checks of accounts' internal API that failed (unreachable, refused, or " +
                                                       "timed out).")
        acceptToSent = registry.histogram("mailwake_relay_accept_to_sent_seconds",
                                          help: "Time from answering 202 to APNs accepting the push.")
        sentToDisplayed = registry.histogram("mailwake_relay_sent_to_displayed_seconds",
                                             help: "Time from APNs accepting the push to the device showing it (receipt shown_at, " +
                                                   "clamped to the relay's times).")
        acceptToDisplayed = registry.histogram("mailwake_relay_accept_to_displayed_seconds",
                                               help: "Time from answering 202 to the device showing the notification (receipt shown_at, " +
                                                     "clamped).")
        var receipts: [String: Counter] = [:]
        for outcome in ["displayed", "duplicate", "ignored"] {
            receipts[outcome] = registry.counter("mailwake_relay_receipts_total",
                                                 help: "Receipt entries, by outcome: displayed (first receipt), duplicate (already " +
                                                       "displayed), ignored (unknown or pruned event).",
                                                 labels: ["outcome": outcome])
        }
        self.receipts = receipts
        var deliveries: [String: Counter] = [:]
        for status in ["sent", "failed", "expired"] {
            deliveries[status] = registry.counter("mailwake_relay_deliveries_total", help: "Deliveries finished, by final status.",
                                                  labels: ["status": status])
        }
        self.deliveries = deliveries
        claimBatch = registry.histogram("mailwake_relay_claim_batch_size", help: "Deliveries claimed per queue claim.",
                                        buckets: [1, 4, 16, 64, 256, 1024])
        let verifiesHelp = "Envelope signature checks, with the outpost key's precomputed table or with the key alone " +
                           "(MAILWAKE_RELAY_VERIFY_TABLES)."
        verifiesWithTable = registry.counter("mailwake_relay_envelope_verifies_total", help: verifiesHelp, labels: ["with": "table"])
        verifiesWithKey = registry.counter("mailwake_relay_envelope_verifies_total", help: verifiesHelp, labels: ["with": "key"])
        verifyTables = registry.gauge("mailwake_relay_verify_tables", help: "Outpost keys holding a precomputed verify table.")
        verifyTablesBuilt = registry.counter("mailwake_relay_verify_tables_built_total",
                                             help: "Verify tables built for outpost keys with many new envelopes.")
        verifyTablesGivenUp = registry.counter("mailwake_relay_verify_tables_given_up_total",
                                               help: "Verify tables given up (no new envelope for a window) for a busier outpost key.")
        diagnosticsSent = registry.counter("mailwake_relay_diagnostics_sent_total", help: "Delivery outcomes reported to accounts.")
    }

    /// Counts a refused submission by its problem code.
    func refused(_ code: String) {
        registry.counter("mailwake_relay_envelopes_refused_total", help: "Envelopes refused, by problem code.",
                         labels: ["reason": code]).increment()
    }
}
