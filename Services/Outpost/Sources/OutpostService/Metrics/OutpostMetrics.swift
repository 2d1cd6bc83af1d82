public import MailwakeCore
import Synchronization

/// The outpost's metrics (`mailwake_outpost_*`), served by its admin listener.
///
/// Every series the outpost can produce is registered at start (zero until
/// it happens), so a dashboard or alert sees it before the first event.
public final class OutpostMetrics: Sendable {
    public let registry: MetricsRegistry
    private let watchStates = Mutex<[String: FolderState.WatchState]>([:])
    /// Per watched folder (labels), when the server last proved its connection alive (Unix seconds, fractional).
    private let confirmations = Mutex<[MetricLabels: Double]>([:])
    private let watchedFolders: [FolderState.WatchState: Gauge]
    private let pending: Gauge
    private let built: Counter

    /// The watch states a folder can be counted in (a stopped watcher is not watching).
    static let countedStates: [FolderState.WatchState] = [.starting, .connecting, .idle, .polling, .authenticationFailed, .retrying]
    static let deliveryOutcomes = ["accepted", "retried", "refused", "sent", "failed", "expired"]
    static let channelOutcomes = ["sent", "retried", "failed", "disabled", "expired"]
    static let reconnectReasons = ["connection", "authentication"]
    static let bodyKinds = ["body", "part"]
    static let catchUpKinds = ["unchanged", "changed", "searched"]

    /// - Parameter registry: where the series live (the admin listener renders it).
    public init(registry: MetricsRegistry = MetricsRegistry()) {
        self.registry = registry
        var gauges: [FolderState.WatchState: Gauge] = [:]
        for state in Self.countedStates {
            gauges[state] = registry.gauge("mailwake_outpost_watched_folders", help: Self.watchedHelp, labels: ["state": state.rawValue])
        }
        watchedFolders = gauges
        pending = registry.gauge("mailwake_outpost_pending_deliveries",
                                 help: "Notifications stored for a device that the relay has not accepted yet (the outpost keeps " +
                                       "submitting them).")
        built = registry.counter("mailwake_outpost_notifications_built_total",
                                 help: "New messages notified: sealed for every paired device and queued for every channel.")
        for reason in Self.reconnectReasons { _ = reconnectCounter(reason) }
        for outcome in Self.deliveryOutcomes { _ = deliveryCounter(outcome) }
        for kind in ChannelRecord.Kind.allCases {
            for outcome in Self.channelOutcomes { _ = channelCounter(kind, outcome) }
        }
        for kind in Self.bodyKinds { _ = bodyCounter(kind) }
        for kind in Self.catchUpKinds { _ = catchUpCounter(kind) }
    }

    static let watchedHelp = "Watched mailbox folders by watcher state (idle, polling, connecting, retrying, authentication-failed, " +
                             "starting)."

    // MARK: mail watching

    /// Records a folder watcher's state; `.stopped` removes the folder.
    func watchState(mailboxID: Int64, folder: String, _ state: FolderState.WatchState) {
        let counts = watchStates.withLock { all -> [FolderState.WatchState: Int] in
            let key = "\(mailboxID)/\(folder)"
            if state == .stopped { all[key] = nil } else { all[key] = state }
            return all.values.reduce(into: [:]) { $0[$1, default: 0] += 1 }
        }
        for (state, gauge) in watchedFolders { gauge.set(Double(counts[state] ?? 0)) }
    }

    // MARK: watch coverage

    static func folderLabels(_ mailboxID: Int64, _ folder: String) -> MetricLabels { ["mailbox_id": String(mailboxID), "folder": folder] }

    /// The server proved the folder's connection alive at `at` (Unix seconds).
    func folderConfirmed(mailboxID: Int64, folder: String, at: Double) {
        let labels = Self.folderLabels(mailboxID, folder)
        let first = confirmations.withLock { all -> Bool in
            defer { all[labels] = max(all[labels] ?? 0, at) }
            return all[labels] == nil
        }
        if first {
            // The series exist (at 0) from the first confirmation on, before any gap.
            _ = gapCounter(labels)
            _ = gapSecondsCounter(labels)
            unconfirmedGauge(labels).set(0)
        }
    }

    /// A folder's period unwatched ended after `seconds`.
    func watchGapClosed(mailboxID: Int64, folder: String, seconds: Int64) {
        let labels = Self.folderLabels(mailboxID, folder)
        gapCounter(labels).increment()
        gapSecondsCounter(labels).increment(by: max(0, seconds))
    }

    /// Sets every folder's seconds-since-last-confirmed gauge (at each scrape).
    public func refreshCoverage(now: Double) {
        for (labels, at) in confirmations.withLock({ $0 }) { unconfirmedGauge(labels).set(max(0, now - at)) }
    }

    private func unconfirmedGauge(_ labels: MetricLabels) -> Gauge {
        registry.gauge("mailwake_outpost_folder_unconfirmed_seconds",
                       help: "Seconds since the server last proved a watched folder's connection alive (any response: IDLE " +
                             "continuation, keepalive, untagged data, tagged OK), by mailbox id and folder; grows while the folder is " +
                             "not watched.", labels: labels)
    }

    private func gapCounter(_ labels: MetricLabels) -> Counter {
        registry.counter("mailwake_outpost_folder_watch_gaps_total",
                         help: "Periods a watched folder was not watched (connection lost or silent, outpost stopped) that a reconnect " +
                               "and catch-up closed, by mailbox id and folder.", labels: labels)
    }

    private func gapSecondsCounter(_ labels: MetricLabels) -> Counter {
        registry.counter("mailwake_outpost_folder_watch_gap_seconds_total",
                         help: "Seconds watched folders were not watched, summed over closed gaps, by mailbox id and folder.",
                         labels: labels)
    }

    /// A catch-up after EXAMINE: `unchanged` (HIGHESTMODSEQ had not moved:
    /// nothing searched or fetched), `changed` (it had, or no QRESYNC), `searched` (no CONDSTORE).
    func catchUp(_ kind: String) { catchUpCounter(kind).increment() }

    private func catchUpCounter(_ kind: String) -> Counter {
        registry.counter("mailwake_outpost_folder_catchups_total",
                         help: "Folder catch-ups after a reconnect or poll, by kind: unchanged (CONDSTORE HIGHESTMODSEQ had not moved, " +
                               "nothing searched), changed (it had), searched (server without CONDSTORE).", labels: ["kind": kind])
    }

    /// A write to the outpost's own store failed while watching (retried on the same IMAP connection).
    func storeFailure() {
        registry.counter("mailwake_outpost_store_failures_total",
                         help: "Writes to the outpost's own store that failed while watching mail (full disk, locked or damaged file); " +
                               "each is retried on the same IMAP connection.").increment()
    }

    /// A mailbox connection ended by an error and is reconnected.
    func imapReconnect(authentication: Bool) {
        reconnectCounter(authentication ? "authentication" : "connection").increment()
    }

    private func reconnectCounter(_ reason: String) -> Counter {
        registry.counter("mailwake_outpost_imap_reconnects_total",
                         help: "Mailbox connections lost or refused and retried, by reason (connection, authentication).",
                         labels: ["reason": reason])
    }

    // MARK: notifications and deliveries

    /// A new message was notified.
    func notificationBuilt() { built.increment() }

    /// What the relay answered for one delivery: `accepted`, `retried`,
    /// `refused` (at submission), `sent`, `failed`, `expired` (its outcome).
    func delivery(_ outcome: String) { deliveryCounter(outcome).increment() }

    private func deliveryCounter(_ outcome: String) -> Counter {
        registry.counter("mailwake_outpost_deliveries_total",
                         help: "Relay deliveries by outcome: accepted, retried or refused at submission; sent, failed or expired in " +
                               "the end.",
                         labels: ["outcome": outcome])
    }

    /// Sets the number of deliveries the relay has not finished with.
    public func setPendingDeliveries(_ count: Int) { pending.set(Double(count)) }

    /// One channel delivery attempt's outcome.
    func channelDelivery(_ kind: ChannelRecord.Kind, _ outcome: String) { channelCounter(kind, outcome).increment() }

    private func channelCounter(_ kind: ChannelRecord.Kind, _ outcome: String) -> Counter {
        registry.counter("mailwake_outpost_channel_deliveries_total",
                         help: "Bark, Pushover and webhook delivery attempts by channel kind and outcome (sent, retried, failed, " +
                               "disabled, expired).",
                         labels: ["kind": kind.rawValue, "outcome": outcome])
    }

    // MARK: the HTTPS API

    /// A message body (`body`) or inline part (`part`) was read and served.
    func bodyRead(_ kind: String) { bodyCounter(kind).increment() }

    private func bodyCounter(_ kind: String) -> Counter {
        registry.counter("mailwake_outpost_body_reads_total",
                         help: "Message bodies and inline parts read from a mailbox and served to a device.", labels: ["kind": kind])
    }

    /// The API refused a request; `reason` is the problem code (`unknown-device`, `bad_signature`, …).
    func apiRefusal(_ reason: String) {
        registry.counter("mailwake_outpost_api_refusals_total", help: "HTTPS API requests refused (4xx), by problem code.",
                         labels: ["reason": reason]).increment()
    }
}
