import Foundation
import MailwakeCore
import MailwakeIMAP
import OutpostService
import StackSupport
import TestSupport
import Testing

/// Watch coverage against a real Dovecot and the relay stack: a connection
/// that goes silent (its imap process stopped: no FIN, no RST, the kernel
/// still acknowledges) is detected by its deadline, replaced and caught up;
/// the gap is recorded with its start and end and shown by `status` and the
/// admin metrics.
@Suite("Outpost watch coverage: a silently dead IMAP connection is detected, replaced and caught up", .serialized, .awaitedCleanup)
struct WatchCoverageTests {
    /// IDLE re-issued every second; a server owing an answer gets 5 s.
    static var timing: WatchTiming {
        var t = WatchTiming()
        t.idleRestart = .seconds(1)
        t.responseTimeout = .seconds(5)
        t.backoff = .milliseconds(200)
        t.maxBackoff = .seconds(1)
        t.pollInterval = .seconds(1)
        return t
    }

    @Test func aStoppedServerProcessIsDetectedTheGapClosedAndTheMailNotifiedOnce() async throws {
        let harness = try await MailWatchHarness.start(timing: Self.timing)
        let metrics = OutpostMetrics()
        harness.startWatching(metrics: metrics)
        _ = try await harness.waitForWatchState(.idle)
        let pid = try await harness.dovecot.onlyIMAPProcess(MailWatchHarness.user)

        try harness.dovecot.freeze(pid)
        let stoppedAt = Int64(Date().timeIntervalSince1970)
        // A second connection (a new imap process) delivers while the watched one is silent.
        try await harness.append(subject: "Sent while the connection was silent")
        let appendedAt = Int64(Date().timeIntervalSince1970)

        let first = try await harness.notifications(count: 1, timeout: 30)
        #expect(first.map(\.subject) == ["Sent while the connection was silent"])
        let gap = try await closedGap(harness, endingAfter: appendedAt)
        #expect(gap.reason == "timed-out")
        #expect(gap.startedAt <= stoppedAt)
        #expect(gap.endedAt! >= appendedAt)
        #expect(gap.seconds(now: 0) >= 1)
        let state = try await harness.outpost.store.folderState(mailboxID: harness.mailbox.id, folder: "INBOX")
        #expect((state?.lastConfirmedAt ?? 0) >= gap.endedAt!)

        // Exactly once: the next message is the second notification, with no repeat of the first before it.
        _ = try await harness.waitForWatchState(.idle)
        try await harness.append(subject: "After the reconnect")
        let both = try await harness.notifications(count: 2, timeout: 30)
        #expect(both.map(\.subject) == ["Sent while the connection was silent", "After the reconnect"])

        metrics.refreshCoverage(now: Date().timeIntervalSince1970)
        let rendered = metrics.registry.render()
        let labels = "{folder=\"INBOX\",mailbox_id=\"\(harness.mailbox.id)\"}"
        #expect(value(rendered, "mailwake_outpost_folder_watch_gaps_total\(labels)") ?? 0 >= 1)
        #expect(value(rendered, "mailwake_outpost_folder_watch_gap_seconds_total\(labels)") ?? 0 >= Double(gap.seconds(now: 0)))
        #expect(value(rendered, "mailwake_outpost_folder_unconfirmed_seconds\(labels)") ?? -1 >= 0)

        // `status` (another process, the same data directory) shows the gap with its start and end.
        let status = try await OutpostCommandLineTests.run(["status", "--data-dir", harness.outpost.directory.path])
        #expect(status.contains("confirmed watched: "))
        #expect(status.contains("not watched \(time(gap.startedAt)) to \(time(gap.endedAt!)) (\(gap.seconds(now: 0)) s, timed-out)"),
                "\(status)")
        await harness.stopWatching()
    }

    @Test func aReconnectWithNothingChangedSkipsTheCatchUpByHighestModSeq() async throws {
        let harness = try await MailWatchHarness.start(timing: Self.timing)
        let metrics = OutpostMetrics()
        harness.startWatching(metrics: metrics)
        _ = try await harness.waitForWatchState(.idle)
        try await harness.append(subject: "Before")
        _ = try await harness.notifications(count: 1, timeout: 30)
        // Reconnect once: this catch-up sees the modseq the new mail moved ("changed") and records it.
        try await kickUntilGapCloses(harness, count: 1)
        #expect(counter(metrics, "changed") >= 2)
        // Nothing changed since: the next reconnect's catch-up is skipped.
        try await kickUntilGapCloses(harness, count: 2)
        #expect(counter(metrics, "unchanged") >= 1)
        #expect(try await harness.allNotifications().count == 1)
        await harness.stopWatching()
    }

    /// The value of series `series` (name and labels) in `rendered`.
    private func value(_ rendered: String, _ series: String) -> Double? {
        rendered.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    private func counter(_ metrics: OutpostMetrics, _ kind: String) -> Int {
        let prefix = "mailwake_outpost_folder_catchups_total{kind=\"\(kind)\"} "
        return metrics.registry.render().split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
            ?? 0
    }

    /// Drops the outpost's connection until `count` gaps have closed.
    private func kickUntilGapCloses(_ harness: MailWatchHarness, count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await harness.outpost.store.watchGaps(mailboxID: harness.mailbox.id,
                                                        folder: "INBOX").filter({ $0.endedAt != nil }).count < count {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("no \(count) closed gaps") }
            try await harness.dovecot.kick(MailWatchHarness.user)
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Waits for a gap of the folder to close at or after `endingAfter`.
    private func closedGap(_ harness: MailWatchHarness, endingAfter: Int64) async throws -> FolderWatchGap {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let gaps = try await harness.outpost.store.watchGaps(mailboxID: harness.mailbox.id, folder: "INBOX")
            if let gap = gaps.first(where: { ($0.endedAt ?? 0) >= endingAfter }) { return gap }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("no closed gap: \(gaps)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func time(_ unix: Int64) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(unix)))
    }
}
