import Foundation
import MailwakeCore
import MailwakeIMAP
import MailwakeMail
import Synchronization

/// Watches one connection's worth of folders of a mailbox on a thread of its
/// own (IMAP I/O blocks): one folder with IDLE, or several polled in turn.
/// New UIDs are fetched after every IDLE wake, poll and reconnect; each
/// message's notification is stored together with the folder moving past it.
/// Reconnects with exponential back-off and jitter, longer after refused
/// credentials; records its state for `status`. Every read has a deadline
/// (`WatchTiming.responseTimeout`), so a server gone silent is replaced; the
/// coverage (last confirmed watched, periods not watched) is recorded per folder.
final class FolderWatcher: Sendable {
    let mailbox: MailboxRecord
    let folders: [String]
    let credentials: MailboxCredentials
    let store: OutpostStore
    let notifier: OutpostNotifier?
    let timing: WatchTiming
    let logger: Logger
    let metrics: OutpostMetrics
    /// Whose `Authentication-Results` decide the notifications' `sender_auth`.
    let authenticity: SenderAuthenticity
    private let stopSignal = StopSignal()
    private let canceller = Mutex<(@Sendable () -> Void)?>(nil)
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    /// The watcher's coverage: the last server response (Unix seconds) and when it was last written to the store.
    private let coverage = Mutex<(confirmed: Double?, persisted: Double)>((nil, 0))
    /// How often, at most, a confirmation is written to the store (every one updates the metrics).
    static let confirmationWriteInterval: Double = 5

    init(mailbox: MailboxRecord, folders: [String], credentials: MailboxCredentials, store: OutpostStore, notifier: OutpostNotifier?,
         timing: WatchTiming, logger: Logger, metrics: OutpostMetrics) {
        self.metrics = metrics
        self.mailbox = mailbox
        self.folders = folders
        self.credentials = credentials
        self.store = store
        self.notifier = notifier
        self.timing = timing
        authenticity = SenderAuthenticity(trusted: mailbox.trustedAuthservIDs)
        self.logger = logger.with("mailbox", .string(mailbox.label)).with("folders", .string(folders.joined(separator: ",")))
    }

    func start() {
        let thread = Thread { [self] in
            self.loop()
            TLSStream.threadDone()
            let waiters = finished.withLock { f in
                f.done = true
                defer { f.waiters = [] }
                return f.waiters
            }
            waiters.forEach { $0.resume() }
        }
        thread.name = "imap-\(mailbox.label)"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Stops the watcher: the current IMAP wait ends at once.
    func stop() {
        stopSignal.set()
        canceller.withLock { $0?() }
    }

    /// Returns once the watcher's thread has finished.
    func waitUntilFinished() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = finished.withLock { f -> Bool in
                if !f.done { f.waiters.append(c) }
                return f.done
            }
            if done { c.resume() }
        }
    }

    // MARK: the loop (watcher thread)

    private func loop() {
        var failures = 0
        openGapsLeftByEarlierRun()
        while !stopSignal.isSet {
            setState(.connecting)
            var authenticationFailed = false
            var connectedAt: ContinuousClock.Instant?
            do {
                let client = try connect()
                connectedAt = .now
                defer {
                    canceller.withLock { $0 = nil }
                    if stopSignal.isSet { client.close() } else { client.logout() }
                }
                try session(client)
            } catch {
                if stopSignal.isSet { break }
                // A session that ran a while resets the back-off; one that fails at once (a folder
                // that does not exist) keeps growing it instead of logging in every 2 s.
                if let connectedAt, ContinuousClock.now - connectedAt > .seconds(60) { failures = 0 }
                failures += 1
                authenticationFailed = error.code == .authentication
                metrics.imapReconnect(authentication: authenticationFailed)
                lostCoverage(reason: error.code.description)
                setState(authenticationFailed ? .authenticationFailed : .retrying, error: error.message)
                logger.warning(authenticationFailed ? "mailbox login refused; retrying later" : "mailbox connection lost; reconnecting",
                               ["error": .string(error.message), "attempt": .int(failures)])
            }
            if stopSignal.sleep(timing.delay(afterFailures: failures, authentication: authenticationFailed)) { break }
        }
        persistConfirmation(force: true)
        setState(.stopped)
    }

    private func connect() throws(IMAPError) -> IMAPClient {
        var endpoint = mailbox.endpoint
        endpoint.commandTimeout = timing.responseTimeout
        let client = try IMAPClient(endpoint: endpoint)
        client.onResponse = { [self] in confirmed() }
        confirmed()
        canceller.withLock { $0 = client.canceller }
        if stopSignal.isSet { client.cancel() }
        do {
            try client.authenticate(try credentials.current())
        } catch {
            if error.code == .authentication, mailbox.authentication == .oauth2 {
                // The token may have expired: ask the command for a fresh one and try once more.
                credentials.refused()
                try client.authenticate(try credentials.current())
            } else {
                client.close()
                throw error
            }
        }
        return client
    }

    private func session(_ client: IMAPClient) throws(IMAPError) {
        let readWrite = Self.needsReadWriteSelection(greeting: client.greeting)
        if folders.count == 1, client.capabilities.contains("IDLE") {
            let folder = folders[0]
            let selection = try client.examine(folder, readWrite: readWrite)
            try catchUp(client, folder: folder, selection: selection)
            setState(.idle)
            logger.info("watching with IDLE")
            while !stopSignal.isSet {
                _ = try client.idle(maximum: timing.idleWait)
                try synchronize(client, folder: folder, selection: selection)
                try endActivitiesOfReadOrDeletedMail(client, folder: folder, selection: selection)
            }
        } else {
            setState(.polling)
            logger.info("watching by polling", ["interval_s": .int(Int(timing.pollInterval.components.seconds))])
            while !stopSignal.isSet {
                for folder in folders {
                    try catchUp(client, folder: folder, selection: try client.examine(folder, readWrite: readWrite))
                }
                if stopSignal.sleep(timing.pollInterval) { return }
                try client.noop()
            }
        }
    }

    /// Whether folders are opened read-write (SELECT) rather than with EXAMINE.
    ///
    /// Courier gives mail an MTA delivered a temporary UID in a read-only
    /// session and numbers it anew, under the same UIDVALIDITY, once a
    /// read-write session records it: a message appended meanwhile takes the
    /// UID the outpost already passed and is never seen (and a never-written
    /// folder gets a new UIDVALIDITY every session). SELECT makes Courier
    /// record the UIDs the outpost sees. Nothing else changes: the outpost
    /// still reads with BODY.PEEK and never stores flags or expunges.
    static func needsReadWriteSelection(greeting: String) -> Bool {
        greeting.contains("Courier-IMAP")
    }

    /// Right after EXAMINE (a new connection, or a poll): skips everything
    /// when HIGHESTMODSEQ has not moved since the last catch-up on a server
    /// with QRESYNC (RFC 7162 §3.2: expunges move it too, not only new mail
    /// and flag changes, so nothing was added, read or removed), else
    /// notifies what is new (the UID search skipped when UIDNEXT shows
    /// nothing new) and ends the Live Activities of mail read or deleted
    /// meanwhile; then closes the folder's open coverage gap.
    private func catchUp(_ client: IMAPClient, folder: String, selection: IMAPSelection) throws(IMAPError) {
        let state = try storeCall { [store, mailbox] in try await store.folderState(mailboxID: mailbox.id, folder: folder) }
        if let modSeq = selection.highestModSeq, client.capabilities.contains("QRESYNC"), let state, state.highestModSeq == modSeq,
           state.uidValidity == selection.uidValidity, state.lastUID != nil {
            metrics.catchUp("unchanged")
            logger.debug("catch-up: nothing changed (HIGHESTMODSEQ)", ["folder": .string(folder)])
            try markSynced(folder)
        } else {
            metrics.catchUp(selection.highestModSeq == nil ? "searched" : "changed")
            try synchronize(client, folder: folder, selection: selection, fresh: true)
            try endActivitiesOfReadOrDeletedMail(client, folder: folder, selection: selection)
            if state?.highestModSeq != selection.highestModSeq {
                try storeCall { [store, mailbox] in try await store.setHighestModSeq(mailboxID: mailbox.id, folder: folder,
                                                                                     selection.highestModSeq) }
            }
        }
        closeGap(folder)
    }

    /// Notifies UIDs above the stored position, then records the folder as in
    /// sync. On a first run records the current end as the position without
    /// notifying; on a changed UIDVALIDITY (see `resynchronize`) notifies what
    /// arrived since the folder was last in sync. With `fresh` (the selection
    /// was just reported) the UID search is skipped when UIDNEXT shows no
    /// message above the position.
    private func synchronize(_ client: IMAPClient, folder: String, selection: IMAPSelection, fresh: Bool = false) throws(IMAPError) {
        let state = try storeCall { [store, mailbox] in try await store.folderState(mailboxID: mailbox.id, folder: folder) }
        guard let state, state.uidValidity == selection.uidValidity, let last = state.lastUID else {
            let end: UInt32 = if let next = selection.uidNext, next > 0 { next - 1 } else { try client.uids(after: 0).last ?? 0 }
            if let state, let old = state.uidValidity, old != selection.uidValidity, let syncedAt = state.syncedAt {
                try resynchronize(client, folder: folder, selection: selection, state: state, syncedAt: syncedAt, end: end)
            } else {
                try storeCall { [store, mailbox] in
                    try await store.setFolderPosition(mailboxID: mailbox.id, folder: folder, uidValidity: selection.uidValidity,
                                                      lastUID: end)
                }
                if let old = state?.uidValidity, old != selection.uidValidity {
                    logger.warning("UIDVALIDITY changed and the folder was never in sync: resynchronized without notifying existing mail",
                                   ["folder": .string(folder)])
                } else {
                    logger.info("first run: existing mail is not notified",
                                ["folder": .string(folder), "messages": .int(Int(selection.exists))])
                }
            }
            try markSynced(folder)
            return
        }
        if fresh, let next = selection.uidNext, next > 0, next - 1 <= last { return try markSynced(folder) }
        let uids = try client.uids(after: last)
        if !uids.isEmpty {
            try handle(client, uids, folder: folder, selection: selection, resyncingFrom: nil)
        }
        try markSynced(folder)
    }

    /// The UIDVALIDITY rule: the folder was rebuilt, restored, or (Courier,
    /// a never-written folder) given a new UIDVALIDITY by the server. Its
    /// messages whose INTERNALDATE is at or after the last time the folder
    /// was in sync (less `resyncClockAllowance`) are notified, except those
    /// whose Message-ID (or, without one, header) was notified already;
    /// older mail is not. The old position stays until the end, so a crash
    /// in between starts the resynchronization over (repeats caught the same way).
    private func resynchronize(_ client: IMAPClient, folder: String, selection: IMAPSelection, state: FolderState, syncedAt: Int64,
                               end: UInt32) throws(IMAPError) {
        let since = syncedAt - timing.resyncClockAllowance.components.seconds
        let recent = try client.uids(receivedSince: since).filter { $0 <= end }
        let keep = FolderPosition(mailboxID: mailbox.id, folder: folder, uidValidity: state.uidValidity ?? 0, uid: state.lastUID ?? 0)
        let notified = try handle(client, recent, folder: folder, selection: selection, resyncingFrom: keep)
        try storeCall { [store, mailbox] in
            try await store.setFolderPosition(mailboxID: mailbox.id, folder: folder, uidValidity: selection.uidValidity, lastUID: end)
        }
        logger.warning("UIDVALIDITY changed: resynchronized, notifying mail that arrived since the folder was last in sync",
                       ["folder": .string(folder), "recent": .int(recent.count), "notified": .int(notified)])
    }

    /// Fetches and notifies `uids` (ascending) in batches. Normally each
    /// message moves the position past it; with `resyncingFrom` (a
    /// resynchronization) the position stays there and messages already
    /// notified (by Message-ID digest) are skipped. Returns how many were notified.
    @discardableResult
    private func handle(_ client: IMAPClient, _ uids: [UInt32], folder: String, selection: IMAPSelection,
                        resyncingFrom kept: FolderPosition?) throws(IMAPError) -> Int {
        guard !uids.isEmpty else { return 0 }
        let rule = try storeCall { [store, mailbox] in try await store.rule(mailboxID: mailbox.id, folder: folder) }
        var index = 0, notifiedCount = 0
        while index < uids.count {
            let batch = Array(uids[index..<min(index + timing.fetchBatch, uids.count)])
            index += batch.count
            // Headers first; the start of the body only where a code may be in it and may be shown.
            var messages = try client.fetchSummaries(batch, textBytes: 0)
            var digests: [UInt32: [UInt8]] = [:]
            for message in messages {
                let digest = try storeCall { [store] in try store.messageIDDigest(Self.identity(of: message)) }
                digests[message.uid] = digest
            }
            if kept != nil {
                let seen = try storeCall { [store, mailbox, digests] in
                    var seen: Set<UInt32> = []
                    for (uid, digest) in digests where try await store.wasNotified(mailboxID: mailbox.id,
                                                                                   digest: digest) { seen.insert(uid) }
                    return seen
                }
                if !seen.isEmpty { logger.debug("resync: already notified", ["folder": .string(folder), "count": .int(seen.count)]) }
                messages.removeAll { seen.contains($0.uid) }
            }
            let needBody = rule.enabled && rule.show.contains(.code)
                ? messages.filter { !MailNotificationBuilder.subjectHasCode($0) }.map(\.uid) : []
            let texts = try client.fetchTextPrefixes(needBody, bytes: MailNotificationBuilder.bodyPrefixBytes)
            for i in messages.indices { messages[i].textPrefix = texts[messages[i].uid] ?? [] }
            for message in messages {
                var position = kept ?? FolderPosition(mailboxID: mailbox.id, folder: folder, uidValidity: selection.uidValidity,
                                                      uid: message.uid)
                position.messageIDDigest = digests[message.uid]
                let content = MailNotificationBuilder.content(for: message, mailbox: mailbox.label, folder: folder,
                                                              authenticity: authenticity)
                let decision = rule.decide(content, minuteOfDay: Self.localMinuteOfDay())
                try storeCall { [store, notifier, position] in
                    if case .notify(let shown) = decision, let notifier {
                        try await notifier.notify(shown, advancing: position)
                    } else {
                        try await store.setFolderPosition(mailboxID: position.mailboxID, folder: folder, uidValidity: position.uidValidity,
                                                          lastUID: position.uid)
                    }
                }
                if case .suppress(let reason) = decision {
                    logger.debug("new message not notified",
                                 ["folder": .string(folder), "uid": .int(Int(message.uid)), "reason": .string(reason)])
                } else {
                    notifiedCount += 1
                    logger.debug("new message notified", ["folder": .string(folder), "uid": .int(Int(message.uid))])
                }
            }
            // Messages deleted between the search and the fetch: move past them too.
            if kept == nil, let highest = batch.last, messages.last?.uid != highest {
                try storeCall { [store, mailbox] in
                    try await store.setFolderPosition(mailboxID: mailbox.id, folder: folder, uidValidity: selection.uidValidity,
                                                      lastUID: highest)
                }
            }
        }
        return notifiedCount
    }

    /// What identifies a message across UIDVALIDITY changes: its Message-ID, else its whole header block.
    static func identity(of message: IMAPFetchedMessage) -> String {
        if let id = MessageIDField.value(in: message.header) { return "message-id:" + id }
        return "header:" + String(decoding: message.header, as: UTF8.self)
    }

    /// Records the folder as in sync now (the time the UIDVALIDITY rule starts from).
    private func markSynced(_ folder: String) throws(IMAPError) {
        try storeCall { [store, mailbox] in try await store.markSynced(mailboxID: mailbox.id, folder: folder) }
    }

    /// Ends the Live Activities of messages that were read (`\Seen`) or
    /// deleted since they were notified.
    private func endActivitiesOfReadOrDeletedMail(_ client: IMAPClient, folder: String, selection: IMAPSelection) throws(IMAPError) {
        guard let notifier else { return }
        let open = try storeCall { [store, mailbox] in try await store.openActivities(mailboxID: mailbox.id, folder: folder) }
            .filter { $0.uidValidity == selection.uidValidity && $0.uid != nil }
        guard !open.isEmpty else { return }
        let flags = try client.flags(Array(Set(open.compactMap(\.uid))).sorted())
        let done = open.filter { a in
            guard let f = flags[a.uid!] else { return true }
            return f.contains("\\seen") || f.contains("\\deleted")
        }
        guard !done.isEmpty else { return }
        try storeCall { try await notifier.liveActivities.end(done, reason: "the message was read or deleted") }
        logger.debug("Live Activities ended: message read or deleted", ["count": .int(done.count)])
    }

    /// Minutes since local midnight (quiet hours are in the outpost's time zone).
    static func localMinuteOfDay(_ date: Date = Date()) -> Int {
        let c = Calendar.current.dateComponents([.hour, .minute], from: date)
        return (c.hour ?? 0) * 60 + (c.minute ?? 0)
    }

    // MARK: coverage (watcher thread, except `confirmed` which is also called from the client's reads on it)

    /// The server answered: the connection, and so its folders, are watched now.
    private func confirmed() {
        let now = WallClock.fractionalSeconds()
        coverage.withLock { $0.confirmed = max($0.confirmed ?? 0, now) }
        for folder in folders { metrics.folderConfirmed(mailboxID: mailbox.id, folder: folder, at: now) }
        persistConfirmation(force: false)
    }

    /// Writes the last confirmation to the store (`force`: now, else at most every few seconds).
    private func persistConfirmation(force: Bool) {
        let due = coverage.withLock { c -> Double? in
            guard let at = c.confirmed, at > c.persisted, force || at - c.persisted >= Self.confirmationWriteInterval else { return nil }
            c.persisted = at
            return at
        }
        guard let due else { return }
        for folder in folders {
            _ = storeAttempt { [store, mailbox] in try await store.confirmWatched(mailboxID: mailbox.id, folder: folder, at: Int64(due)) }
        }
    }

    /// The connection failed or went silent: its folders are not watched from the last confirmation on.
    private func lostCoverage(reason: String) {
        persistConfirmation(force: true)
        for folder in folders {
            _ = storeAttempt { [store, mailbox] in
                guard let start = try await store.folderState(mailboxID: mailbox.id, folder: folder)?.lastConfirmedAt else { return }
                try await store.openWatchGap(mailboxID: mailbox.id, folder: folder, startedAt: start, reason: reason)
            }
        }
    }

    /// A folder confirmed watched by an earlier run was not watched since (the outpost or its watcher was stopped).
    private func openGapsLeftByEarlierRun() {
        for folder in folders {
            _ = storeAttempt { [store, mailbox] in
                guard let start = try await store.folderState(mailboxID: mailbox.id, folder: folder)?.lastConfirmedAt else { return }
                try await store.openWatchGap(mailboxID: mailbox.id, folder: folder, startedAt: start, reason: "outpost-stopped")
            }
        }
    }

    /// The folder has caught up on a live connection: its open gap (if any) ends now.
    private func closeGap(_ folder: String) {
        // The catch-up's answers confirm the folder watched as of now: one instant for the confirmation and the gap's
        // end, so the folder is never shown last confirmed before its gap ended (a second boundary between two clock reads).
        let instant = WallClock.fractionalSeconds()
        coverage.withLock { $0.confirmed = max($0.confirmed ?? 0, instant) }
        persistConfirmation(force: true)
        let now = Int64(instant)
        guard let gap = storeAttempt({ [store, mailbox] in try await store.closeWatchGap(mailboxID: mailbox.id, folder: folder,
                                                                                         endedAt: now) }) ?? nil
        else { return }
        metrics.watchGapClosed(mailboxID: mailbox.id, folder: folder, seconds: gap.seconds(now: now))
        logger.notice("folder watched again after a gap; caught up", ["folder": .string(folder), "gap_s": .int(Int(gap.seconds(now: now))),
                                                                      "reason": .string(gap.reason)])
    }

    private func setState(_ state: FolderState.WatchState, error: String? = nil) {
        setWatchStateMetric(state)
        for folder in folders {
            _ = storeAttempt { [store, mailbox] in try await store.setWatchState(mailboxID: mailbox.id, folder: folder, state,
                                                                                 error: error) }
        }
    }

    /// Store work the session cannot go on without, from the watcher thread.
    ///
    /// A failure of the outpost's own store (a full disk, a locked or
    /// damaged file) is no fault of the mail server: the IMAP connection
    /// stays as it is, and the same work is tried again after the usual
    /// back-off until it succeeds or the watcher stops. Reconnecting would
    /// only log in again and fetch the same message into the same failing store.
    private func storeCall<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws(IMAPError) -> T {
        var failures = 0
        while true {
            do {
                let value = try BlockingBridge.wait(body)
                if failures > 0 {
                    logger.notice("the outpost's local store works again; watching goes on", ["failures": .int(failures)])
                }
                return value
            } catch {
                failures += 1
                metrics.storeFailure()
                if failures == 1 || failures % 10 == 0 {
                    logger.error("the outpost cannot write its local store; retrying on the same IMAP connection",
                                 ["error": .string("\(error)"), "attempt": .int(failures)])
                }
                if failures == 1 { setWatchStateMetric(.retrying) }
                if stopSignal.sleep(timing.delay(afterFailures: failures, authentication: false)) {
                    throw IMAPError(.cancelled, "stopped while the local store was failing")
                }
            }
        }
    }

    /// Best-effort store work (watch state, confirmations): one attempt, nil when the store fails.
    private func storeAttempt<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> T? {
        try? BlockingBridge.wait(body)
    }

    /// Shows `state` in the metrics only (the store that would record it is failing).
    private func setWatchStateMetric(_ state: FolderState.WatchState) {
        for folder in folders { metrics.watchState(mailboxID: mailbox.id, folder: folder, state) }
    }
}
