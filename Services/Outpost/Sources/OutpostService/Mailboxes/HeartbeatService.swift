public import MailwakeCore
import MailwakeProtocol

/// Posts the outpost's heartbeat to its relay (PROTOCOL.md §14) every
/// interval while it has active pairings: how many mailboxes it watches and
/// how many fail to connect or log in (counts only, never a name).
public struct HeartbeatService: Service {
    public var name: String { "heartbeat" }
    let store: OutpostStore
    let client: OutpostRelayClient
    let outpostID: String
    let interval: Duration
    let logger: Logger
    let clock: @Sendable () -> Int64
    /// Mailboxes last counted failing: a watcher that only reconnects (`connecting`, `starting`, a short `retrying`)
    /// between refused logins stays failing, so the count does not drop to 0 and rise again (a new alert) at every retry.
    private let failingBefore = SharedFailingSet()

    /// A folder retrying for longer than this counts as failing to connect.
    public static let retryingCountsAfter: Int64 = 120

    public init(store: OutpostStore, client: OutpostRelayClient, outpostID: String, interval: Duration, logger: Logger,
                clock: @escaping @Sendable () -> Int64 = WallClock.seconds) {
        self.store = store
        self.client = client
        self.outpostID = outpostID
        self.interval = interval
        self.logger = logger
        self.clock = clock
    }

    public func run() async throws {
        var failedBefore = false
        while !Task.isCancelled {
            do {
                if try await !store.pairings(activeOnly: true).isEmpty {
                    try await beat()
                    if failedBefore { logger.info("heartbeat reaches the relay again") }
                    failedBefore = false
                }
            } catch {
                if !failedBefore { logger.warning("heartbeat failed; retrying", ["error": .string("\(error)")]) }
                failedBefore = true
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Posts one heartbeat.
    public func beat() async throws {
        let (mailboxes, failing) = try await counts()
        var w = JSONWriter(capacity: 48)
        w.beginObject()
        w.int("mailboxes", Int64(mailboxes))
        w.int("failing", Int64(failing))
        w.endObject()
        let response = try await client.signed(.post, "/v1/outposts/\(outpostID)/heartbeat", body: w.bytes, timeout: .seconds(20))
        guard (200..<300).contains(Int(response.status.code)) else {
            throw HeartbeatError(status: Int(response.status.code), detail: response.text)
        }
    }

    /// Enabled mailboxes, and those of them with a folder whose login was
    /// refused or that has been retrying a connection for over two minutes.
    public func counts() async throws -> (mailboxes: Int, failing: Int) {
        let enabled = Set(try await store.mailboxes().filter(\.enabled).map(\.id))
        let now = clock()
        let before = failingBefore.value
        var failing = Set<Int64>()
        var healthy = Set<Int64>()
        for state in try await store.folderStates() where enabled.contains(state.mailboxID) {
            switch state.watchState {
            case .authenticationFailed: failing.insert(state.mailboxID)
            case .retrying where now - state.stateSince >= Self.retryingCountsAfter: failing.insert(state.mailboxID)
            case .idle, .polling: healthy.insert(state.mailboxID)
            default: break
            }
        }
        // Between attempts a failing mailbox's folders pass through connecting: it keeps failing until a folder watches again.
        failing.formUnion(before.subtracting(healthy).intersection(enabled))
        failingBefore.value = failing
        return (enabled.count, failing.count)
    }
}

