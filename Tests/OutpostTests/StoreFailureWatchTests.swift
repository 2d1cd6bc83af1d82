import Foundation
import MailwakeCore
import OutpostService
import StackSupport
import TestSupport
import Testing

/// A failing local store while watching (a full disk): against a real
/// Dovecot and the relay stack, the watcher keeps its IMAP connection, retries
/// the write, and notifies the mail once the store takes it.
@Suite("Outpost watch: a failing local store keeps the IMAP connection and loses no mail", .serialized, .awaitedCleanup)
struct StoreFailureWatchTests {
    /// Fails every new `history` row on the store's own connection, as a full disk would fail the write.
    static let fullDisk = """
                          CREATE TEMP TRIGGER mailwake_test_full_disk BEFORE INSERT ON history BEGIN SELECT RAISE(ABORT, 'database or \
                          disk is full'); END
                          """

    @Test func mailThatArrivesWhileTheStoreFailsIsNotifiedOnceItWorksOnTheSameConnection() async throws {
        let harness = try await MailWatchHarness.start()
        let metrics = OutpostMetrics()
        harness.startWatching(metrics: metrics)
        _ = try await harness.waitForWatchState(.idle)
        let watching = try await harness.dovecot.onlyIMAPProcess(MailWatchHarness.user)

        try await harness.outpost.store.database.execute(Self.fullDisk)
        try await harness.append(subject: "Arrived while the disk was full")
        // Tried, failed, waited and tried again: the watcher is retrying the write.
        try await waitFor(metrics, "mailwake_outpost_store_failures_total", atLeast: 2)
        try await harness.outpost.store.database.execute("DROP TRIGGER temp.mailwake_test_full_disk")

        let shown = try await harness.notifications(count: 1, timeout: 30)
        #expect(shown.map(\.subject) == ["Arrived while the disk was full"])
        // The same imap process serves the watcher: it never logged in again.
        #expect(try await harness.dovecot.onlyIMAPProcess(MailWatchHarness.user) == watching)
        let rendered = metrics.registry.render()
        #expect(AdminMetricsTests.value("mailwake_outpost_imap_reconnects_total{reason=\"connection\"}", in: rendered) ?? 0 == 0)
        _ = try await harness.waitForWatchState(.idle)
        await harness.stopWatching()
    }

    /// Polls the registry until `series` reaches `expected` (20 s at most).
    private func waitFor(_ metrics: OutpostMetrics, _ series: String, atLeast expected: Double) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while (AdminMetricsTests.value(series, in: metrics.registry.render()) ?? 0) < expected {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("\(series) stayed below \(expected)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
