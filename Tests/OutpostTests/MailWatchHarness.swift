import Foundation
import MailwakeCore
import MailwakeIMAP
import MailwakeProtocol
import OutpostService
import StackSupport
import Synchronization
import TestSupport

/// The whole path under test: a real IMAP server (Dovecot unless another kind is asked for), an outpost watching it with a
/// paired device, the relay stack and the APNs simulator. Mail is appended
/// over IMAP as another client would; what reaches APNs is opened as the
/// device would.
final class MailWatchHarness: Sendable {
    let stack: RelayStack
    /// The IMAP server the outpost watches.
    let server: any TestIMAPServer
    let outpost: OutpostFixture
    let device: SimulatedDevice
    let paired: PairedDevice
    let mailbox: MailboxRecord
    let timing: WatchTiming
    private let running = RunningTask()
    /// Rung by the outpost API after mailbox changes; the watchers restart.
    let reconfigured = Doorbell()
    /// Whether `startWatching` runs.
    var isWatching: Bool { running.isRunning }
    static let user = "alice"
    static let password = "correct horse battery staple"

    /// The server, when it is Dovecot (the cases that use doveadm or Dovecot's log).
    var dovecot: DovecotServer {
        guard let dovecot = server as? DovecotServer else { preconditionFailure("this case needs Dovecot, not \(server.kind)") }
        return dovecot
    }

    /// - Parameter tokenCommand: log in with XOAUTH2, the token printed by this command (else with `password`).
    /// - Parameter oauth2IntrospectionURL: Dovecot checks XOAUTH2 tokens at this introspection endpoint (`DovecotServer.start`).
    static func start(server kind: IMAPServerKind = .dovecot, advertisesIdle: Bool = true, password: String = MailWatchHarness.password,
                      tokenCommand: String? = nil,
                      timing: WatchTiming? = nil, folders: [String] = ["INBOX"], trustedAuthservIDs: [String] = [],
                      oauth2IntrospectionURL: String? = nil) async throws -> MailWatchHarness {
        let stack = try await RelayStack.start()
        let server: any TestIMAPServer = if kind == .dovecot {
            try await DovecotServer.start(users: [(user, MailWatchHarness.password)], advertisesIdle: advertisesIdle,
                                          oauth2IntrospectionURL: oauth2IntrospectionURL)
        } else {
            try await kind.start(users: [(user, MailWatchHarness.password)])
        }
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let paired = try await outpost.pair(device, through: stack)
        let endpoint = IMAPEndpoint(host: "localhost", port: server.imapsPort, security: .implicitTLS, caFile: server.caFile)
        let mailbox = try await outpost.store.addMailbox(
            MailboxRecord(label: "personal", endpoint: endpoint, username: user, authentication: tokenCommand == nil ? .password : .oauth2,
                          folders: folders,
                          trustedAuthservIDs: trustedAuthservIDs),
            secret: tokenCommand ?? password)
        var fast = WatchTiming()
        fast.backoff = .milliseconds(200)
        fast.maxBackoff = .seconds(1)
        fast.authenticationBackoff = .seconds(1)
        fast.pollInterval = .seconds(1)
        return MailWatchHarness(stack: stack, server: server, outpost: outpost, device: device, paired: paired, mailbox: mailbox,
                                timing: timing ?? fast)
    }

    private init(stack: RelayStack, server: any TestIMAPServer, outpost: OutpostFixture, device: SimulatedDevice, paired: PairedDevice,
                 mailbox: MailboxRecord, timing: WatchTiming) {
        self.stack = stack
        self.server = server
        self.outpost = outpost
        self.device = device
        self.paired = paired
        self.mailbox = mailbox
        self.timing = timing
        AwaitedCleanup.register { [running] in await running.stop() }
    }

    /// Starts the outpost's watching and delivery, as `serve` runs them.
    func startWatching(liveActivityLifetime: Int64 = 600, metrics: OutpostMetrics = OutpostMetrics()) {
        let doorbell = Doorbell()
        let logger = Logger(service: "outpost-test", level: .warning)
        let notifier = OutpostNotifier(store: outpost.store, identity: outpost.identity, relay: outpost.relay, doorbell: doorbell,
                                       liveActivityLifetime: liveActivityLifetime)
        let watch = MailWatchService(store: outpost.store, notifier: notifier, timing: timing, logger: logger, reconfigured: reconfigured,
                                     metrics: metrics)
        let sender = ChannelSender()
        let worker = OutpostDeliveryWorker(pass: outpost.pass, logger: logger, doorbell: doorbell,
                                           channels: ChannelDeliveryPass(store: outpost.store, sender: sender, logger: logger),
                                           activities: notifier.liveActivities)
        let task = Task {
            defer { sender.shutdown() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await watch.run() }
                group.addTask { try await worker.run() }
                try await group.waitForAll()
            }
        }
        running.set(task)
    }

    /// Stops watching and delivery (a stopped outpost).
    func stopWatching() async {
        await running.stop()
    }

    /// Appends a message over IMAP; returns its UID.
    @discardableResult
    func append(_ message: [UInt8], folder: String = "INBOX") async throws -> UInt32? {
        try await appendAs(Self.user, Self.password, message, folder: folder)
    }

    /// Appends `message` to another user's folder.
    @discardableResult
    func appendAs(_ user: String, _ password: String, _ message: [UInt8], folder: String = "INBOX") async throws -> UInt32? {
        let endpoint = IMAPEndpoint(host: "localhost", port: server.imapsPort, security: .implicitTLS, caFile: server.caFile)
        return try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: user, password: password))
            return try client.append(message, to: folder)
        }
    }

    func append(subject: String, body: String = "Hello.", from: String = "Ada Lovelace <ada@example.org>") async throws {
        try await append(Self.message(subject: subject, body: body, from: from))
    }

    static func message(subject: String, body: String, from: String = "Ada Lovelace <ada@example.org>") -> [UInt8] {
        Array(("From: \(from)\r\nTo: alice@example.org\r\nSubject: \(subject)\r\nDate: Sun, 29 Nov 2026 10:00:00 +0000\r\n" +
               "Message-ID: <\(UUID().uuidString)@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\(body)\r\n").utf8)
    }

    /// Waits for `count` notifications (alert pushes) at APNs and opens them as the device.
    func notifications(count: Int, timeout: Double = 60) async throws -> [NotificationContent] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var deliveries = try await stack.simulator.deliveries().filter { $0.pushType == "alert" }
        while deliveries.count < count {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("\(deliveries.count) of \(count) notifications arrived") }
            try await Task.sleep(for: .milliseconds(50))
            deliveries = try await stack.simulator.deliveries().filter { $0.pushType == "alert" }
        }
        return try deliveries.map { try device.open(payload: $0.payload, outpostKey: outpost.identity.signingKey.publicKey,
                                                    pairingID: paired.pairingID) }
    }

    /// Every notification (alert push) that reached APNs so far.
    func allNotifications() async throws -> [NotificationContent] {
        try await stack.simulator.deliveries().filter { $0.pushType == "alert" }.map {
            try device.open(payload: $0.payload, outpostKey: outpost.identity.signingKey.publicKey, pairingID: paired.pairingID)
        }
    }

    /// Waits until the folder's watcher reports `state`.
    func waitForWatchState(_ state: FolderState.WatchState, folder: String = "INBOX", mailboxID: Int64? = nil,
                           timeout: Double = 60) async throws -> FolderState {
        let deadline = ContinuousClock.now + .seconds(timeout)
        let mailboxID = mailboxID ?? mailbox.id
        while true {
            if let s = try await outpost.store.folderState(mailboxID: mailboxID, folder: folder), s.watchState == state { return s }
            guard ContinuousClock.now < deadline else {
                let now = try await outpost.store.folderState(mailboxID: mailboxID, folder: folder)
                throw TestHarnessError("the watcher did not reach \(state.rawValue): \(String(describing: now))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// The watching-and-delivery task of a harness.
final class RunningTask: Sendable {
    private let task = Mutex<Task<Void, any Error>?>(nil)

    func set(_ t: Task<Void, any Error>) { task.withLock { $0 = t } }

    var isRunning: Bool { task.withLock { $0 != nil } }

    /// Cancels the task and waits for it to end.
    func stop() async {
        let t = task.withLock { t in defer { t = nil }; return t }
        t?.cancel()
        _ = await t?.result
    }
}
