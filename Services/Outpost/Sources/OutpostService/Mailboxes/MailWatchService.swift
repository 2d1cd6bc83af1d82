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

    public init(store: OutpostStore, notifier: OutpostNotifier?, timing: WatchTiming = WatchTiming(), logger: Logger) {
        self.store = store
        self.notifier = notifier
        self.timing = timing
        self.logger = logger
    }

    public func run() async throws {
        var watchers: [FolderWatcher] = []
        for mailbox in try await store.mailboxes() where mailbox.enabled {
            let credentials = MailboxCredentials(record: mailbox, secret: try await store.mailboxSecret(mailbox.id))
            for group in Self.connectionGroups(mailbox.folders, limit: mailbox.maxConnections) {
                watchers.append(FolderWatcher(mailbox: mailbox, folders: group, credentials: credentials, store: store, notifier: notifier,
                                              timing: timing, logger: logger))
            }
        }
        if watchers.isEmpty { logger.notice("no mailboxes to watch: add one with `mailwake-outpost mailbox add`") }
        let all = watchers
        all.forEach { $0.start() }
        await withTaskCancellationHandler {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        } onCancel: {
            all.forEach { $0.stop() }
        }
        for watcher in all { await watcher.waitUntilFinished() }
    }

    /// One folder per connection up to `limit`; the rest share the last connection (polled).
    static func connectionGroups(_ folders: [String], limit: Int) -> [[String]] {
        let limit = max(1, limit)
        guard folders.count > limit else { return folders.map { [$0] } }
        return folders.prefix(limit - 1).map { [$0] } + [Array(folders.dropFirst(limit - 1))]
    }
}
