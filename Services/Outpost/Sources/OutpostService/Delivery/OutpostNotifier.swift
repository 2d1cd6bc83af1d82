public import MailwakeCore
public import MailwakeProtocol

/// The one entry point for notifying, used by mail watching and the `notify` command.
///
/// Seals a notification for every active pairing (`NotificationSealer`), starts
/// a code's Live Activities (`LiveActivityLifecycle`), and stores it all before
/// anything is sent (`Outbox`).
public struct OutpostNotifier: Sendable {
    let store: OutpostStore
    let relay: RelaySettingsRecord
    let clock: @Sendable () -> Int64
    let sealer: NotificationSealer
    let outbox: Outbox
    /// Starts and ends codes' Live Activities (the delivery worker ends those whose lifetime is over).
    public let liveActivities: LiveActivityLifecycle

    /// - Parameters:
    ///   - maxAge: seconds an undelivered envelope is kept trying (the relay refuses older ones too).
    ///   - doorbell: rung after envelopes are stored, to wake the delivery worker at once.
    ///   - liveActivityLifetime: seconds a code's Live Activity stays before it ends by itself; 0: no Live Activities.
    ///   - metrics: counts notifications built.
    public init(store: OutpostStore, identity: OutpostIdentity, relay: RelaySettingsRecord, maxAge: Int64 = 86400,
                doorbell: Doorbell? = nil, liveActivityLifetime: Int64 = 600, metrics: OutpostMetrics = OutpostMetrics(),
                clock: @escaping @Sendable () -> Int64 = WallClock.seconds) {
        let outbox = Outbox(store: store, maxAge: maxAge, doorbell: doorbell, metrics: metrics)
        self.store = store
        self.relay = relay
        self.clock = clock
        self.sealer = NotificationSealer(identity: identity, relay: relay)
        self.outbox = outbox
        self.liveActivities = LiveActivityLifecycle(store: store, identity: identity, relay: relay, lifetime: liveActivityLifetime,
                                                    clock: clock, outbox: outbox)
    }

    /// Seals and stores `content` for every active pairing at this relay, and queues it for every enabled channel.
    ///
    /// Returns the history id (nil when nothing is paired and no channel is
    /// on). With `position`, the folder moves past the message in the same transaction.
    @discardableResult
    public func notify(_ content: NotificationContent, advancing position: FolderPosition? = nil) async throws -> Int64? {
        let pairings = try await store.pairings(activeOnly: true).filter { $0.relayURL == relay.origin }
        let now = clock()
        var sealed: [SealedNotification] = []
        var starts: [ActivityStart] = []
        for pairing in pairings {
            let notification = try sealer.seal(content, for: pairing, advancing: position, now: now)
            sealed.append(notification)
            if liveActivities.starts(content, on: pairing) {
                starts.append(try liveActivities.start(notification, now: now))
            }
        }
        return try await outbox.record(content, sealed: sealed, activities: starts, advancing: position, now: now)
    }
}
