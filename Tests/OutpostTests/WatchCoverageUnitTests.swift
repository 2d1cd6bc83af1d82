import Foundation
import MailwakeIMAP
@testable import OutpostService
import TestSupport
import Testing

@Suite("Outpost watch coverage: the IDLE cap, kept gaps and what status prints")
struct WatchCoverageUnitTests {
    @Test func idleIsReissuedBeforeRFC2177sTwentyNineMinutesWhateverIsConfigured() {
        var timing = WatchTiming()
        #expect(timing.idleWait == .seconds(240))
        for configured in [Duration.seconds(29 * 60), .seconds(30 * 60), .seconds(7200), .seconds(86400 * 365)] {
            timing.idleRestart = configured
            #expect(timing.idleWait < WatchTiming.idleLimit)
            #expect(timing.idleWait == .seconds(28 * 60))
        }
        timing.idleRestart = .zero
        #expect(timing.idleWait == .seconds(1))
        #expect(WatchTiming.idleLimit == .seconds(29 * 60))
    }

    @Test func aFolderKeepsItsNewestGapsAndOneOpenGapAtATime() async throws {
        try await MailboxIdentityTests.withStore { store in
            let mailbox = try await store.addMailbox(MailboxRecord(label: "m", endpoint: IMAPEndpoint(host: "localhost"), username: "u",
                                                                   authentication: .password, folders: ["INBOX"]), secret: "pw")
            try await store.confirmWatched(mailboxID: mailbox.id, folder: "INBOX", at: 1000)
            try await store.confirmWatched(mailboxID: mailbox.id, folder: "INBOX", at: 900)
            #expect(try await store.folderState(mailboxID: mailbox.id, folder: "INBOX")?.lastConfirmedAt == 1000)
            try await store.openWatchGap(mailboxID: mailbox.id, folder: "INBOX", startedAt: 1000, reason: "timed-out")
            try await store.openWatchGap(mailboxID: mailbox.id, folder: "INBOX", startedAt: 1005, reason: "connect")
            #expect(try await store.watchGaps(mailboxID: mailbox.id, folder: "INBOX") ==
                    [FolderWatchGap(mailboxID: mailbox.id, folder: "INBOX", startedAt: 1000, endedAt: nil, reason: "timed-out")])
            let closed = try await store.closeWatchGap(mailboxID: mailbox.id, folder: "INBOX", endedAt: 1030)
            #expect(closed?.seconds(now: 0) == 30)
            #expect(try await store.closeWatchGap(mailboxID: mailbox.id, folder: "INBOX", endedAt: 1040) == nil)
            for i in 0..<30 {
                let start = Int64(2000 + i * 100)
                try await store.openWatchGap(mailboxID: mailbox.id, folder: "INBOX", startedAt: start, reason: "closed")
                _ = try await store.closeWatchGap(mailboxID: mailbox.id, folder: "INBOX", endedAt: start + 10)
            }
            let kept = try await store.watchGaps(mailboxID: mailbox.id, folder: "INBOX")
            #expect(kept.count == OutpostStore.keptWatchGaps)
            let newest: Int64 = 2000 + 29 * 100
            #expect(kept.first?.startedAt == newest)
            #expect(try await store.removeMailbox(label: "m"))
            #expect(try await store.watchGaps(mailboxID: mailbox.id, folder: "INBOX").isEmpty)
        }
    }

    @Test func statusShowsTheLastConfirmationAnOpenGapAndRecentGaps() {
        var state = FolderState(mailboxID: 1, folder: "INBOX", uidValidity: 1, lastUID: 3, watchState: .retrying, lastError: nil,
                                stateSince: 0)
        state.lastConfirmedAt = 1000
        let gaps = [
            FolderWatchGap(mailboxID: 1, folder: "INBOX", startedAt: 1000, endedAt: nil, reason: "timed-out"),
            FolderWatchGap(mailboxID: 1, folder: "INBOX", startedAt: 100, endedAt: 400, reason: "outpost-stopped"),
        ]
        let lines = WatchCoverageReport.lines(state: state, gaps: gaps, now: 1100, time: { "t\($0)" })
        #expect(lines == [
            "confirmed watched: t1000 (1 min 40 s ago)",
            "NOT WATCHED since t1000 (1 min 40 s, timed-out)",
            "not watched t100 to t400 (5 min 0 s, outpost-stopped)",
        ])
        #expect(WatchCoverageReport.lines(state: nil, gaps: [], now: 0, time: { "\($0)" }) == ["confirmed watched: never"])
    }
}
