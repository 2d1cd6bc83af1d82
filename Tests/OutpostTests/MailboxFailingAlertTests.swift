import Foundation
import MailwakeCore
import OutpostService
import StackSupport
import TestSupport
import Testing

@Suite("Outpost heartbeats: a changed IMAP password sends one mailbox-failing alert (PROTOCOL §14)", .serialized, .awaitedCleanup)
struct MailboxFailingAlertTests {
    @Test func aChangedPasswordAtDovecotRaisesOneMailboxFailingAlert() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching()
        let heartbeat = HeartbeatService(store: h.outpost.store, client: h.outpost.client, outpostID: h.outpost.identity.id,
                                         interval: .milliseconds(200), logger: Logger(service: "outpost-test", level: .warning))
        let beating = Task { try? await heartbeat.run() }
        defer { beating.cancel() }
        let database = h.stack.relay.app.database
        func heartbeatCounts() async throws -> (Int32, Int32)? {
            try await database.query("""
                                     SELECT mailboxes, failing FROM outpost_heartbeats WHERE outpost_id = \
                                     \(h.outpost.identity.id)
                                     """).first?
                .decode((Int32, Int32).self)
        }
        // Watched, nothing failing: the relay holds 1 mailbox, 0 failing, and no alert.
        var deadline = ContinuousClock.now + .seconds(30)
        while true {
            let idle = try await h.outpost.store.folderStates().first?.watchState == .idle
            let counts = try await heartbeatCounts()
            if idle, let counts, counts == (1, 0) { break }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("""
                                                                               not watched: \
                                                                               \(try await h.outpost.store.folderStates())
                                                                               """) }
            try await Task.sleep(for: .milliseconds(100))
        }
        // The owner changes the password at the server; the session is dropped and the login refused.
        try h.dovecot.setPassword(MailWatchHarness.user, "a new password the outpost does not know")
        // `doveadm kick` misses a session Dovecot has not registered yet: kick until the outpost's session is gone.
        deadline = ContinuousClock.now + .seconds(60)
        while try await h.outpost.store.folderStates().first?.watchState == .idle {
            try await h.dovecot.kick(MailWatchHarness.user)
            guard ContinuousClock.now < deadline else { throw TestHarnessError("the outpost's IMAP session was never dropped") }
            try await Task.sleep(for: .milliseconds(500))
        }
        let alerts: [APNsSimulatorProcess.Delivery]
        do {
            alerts = try await HeartbeatAlertWait.alerts(h.stack, "mailbox-failing", count: 1, timeout: 60)
        } catch {
            let deliveries = try await database.query("SELECT kind, status, apns_reason FROM deliveries").map { try $0.decode((String,
                String, String?).self) }
            throw TestHarnessError("""
                                   \(error); folders \(try await h.outpost.store.folderStates()); relay holds \
                                   \(String(describing: try await heartbeatCounts())); deliveries \(deliveries)
                                   """)
        }
        #expect(alerts.count == 1)
        #expect(alerts.first?.deviceToken == h.device.apnsToken)
        let payload = try #require(alerts.first?.payload)
        #expect(payload.contains(#""failing":1"#))
        #expect(!payload.contains("personal") && !payload.contains(MailWatchHarness.user) && !payload.contains("INBOX"),
                "a count, never a name")
        // Still failing through many more heartbeats: still one alert.
        deadline = ContinuousClock.now + .seconds(30)
        let rowsBefore = try await database.query("SELECT count(*) FROM outpost_heartbeats").single().decode(Int64.self, at: 0)
        #expect(rowsBefore == 1)
        var beatsSeen = 0
        var last: Int64 = 0
        while beatsSeen < 5, ContinuousClock.now < deadline {
            let seen = try await database.query("SELECT last_seen_ms FROM outpost_heartbeats").single().decode(Int64.self, at: 0)
            if seen != last { beatsSeen += 1; last = seen }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(beatsSeen >= 5)
        #expect(try await heartbeatCounts().map { $0 == (1, 1) } == true)
        #expect(try await HeartbeatAlertWait.alerts(h.stack, "mailbox-failing", count: 1).count == 1)
    }
}
