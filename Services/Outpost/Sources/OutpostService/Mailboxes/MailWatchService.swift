public import MailwakeCore

/// The daemon's mail watching: a `FolderWatcher` per folder of every enabled
/// mailbox, within each account's connection limit (folders beyond it share
/// one polling connection). Cancellation stops every watcher at once.
public struct MailWatchService: Service {
    public var name: String { "mail-watch" }
    let store: OutpostStore
    let notifier: OutpostNotifier?
    let timing: WatchTiming
    let logger: Logger
    /// Rung when mailboxes were changed (the HTTPS API): the watchers restart with the new settings.
    let reconfigured: Doorbell
    /// How often the mailbox settings are compared with those being watched (changes made by the CLI).
    let rescanInterval: Duration
    /// Watched folders by state, reconnects.
    let metrics: OutpostMetrics

    public init(store: OutpostStore, notifier: OutpostNotifier?, timing: WatchTiming = WatchTiming(), logger: Logger,
                reconfigured: Doorbell = Doorbell(), rescanInterval: Duration = .seconds(30), metrics: OutpostMetrics = OutpostMetrics()) {
        self.metrics = metrics
        self.store = store
        self.notifier = notifier
        self.timing = timing
        self.logger = logger
        self.reconfigured = reconfigured
        self.rescanInterval = rescanInterval
    }

    public func run() async throws {
        try await withTaskCancellationHandler {
            while !Task.isCancelled {
                let rings = reconfigured.ringCount
                let watched = try await store.mailboxes()
                let watchers = try await self.watchers(for: watched)
                watchers.forEach { $0.start() }
                while !Task.isCancelled {
                    await reconfigured.wait(timeout: rescanInterval)
                    if reconfigured.ringCount != rings || Task.isCancelled { break }
                    if let now = try? await store.mailboxes(), now != watched { break }
                }
                watchers.forEach { $0.stop() }
                for watcher in watchers { await watcher.waitUntilFinished() }
                if !Task.isCancelled { logger.info("mailboxes changed: watching again with the new settings") }
            }
        } onCancel: {
            reconfigured.ring()
        }
    }

    private func watchers(for mailboxes: [MailboxRecord]) async throws -> [FolderWatcher] {
        var watchers: [FolderWatcher] = []
        for mailbox in mailboxes where mailbox.enabled {
            let credentials = MailboxCredentials(record: mailbox, secret: try await store.mailboxSecret(mailbox.id), store: store)
            var timing = self.timing
            if let idleRestart = mailbox.idleRestart { timing.idleRestart = idleRestart }   // the provider's own renewal (its preset)
            for group in Self.connectionGroups(mailbox.folders, limit: mailbox.maxConnections) {
                watchers.append(FolderWatcher(mailbox: mailbox, folders: group, credentials: credentials, store: store, notifier: notifier,
                                              timing: timing, logger: logger, metrics: metrics))
            }
        }
        if watchers.isEmpty { logger.notice("no mailboxes to watch: add one with `mailwake-outpost mailbox add`") }
        return watchers
    }

    /// One folder per connection up to `limit`; the rest share the last connection (polled).
    static func connectionGroups(_ folders: [String], limit: Int) -> [[String]] {
        let limit = max(1, limit)
        guard folders.count > limit else { return folders.map { [$0] } }
        return folders.prefix(limit - 1).map { [$0] } + [Array(folders.dropFirst(limit - 1))]
    }
}
