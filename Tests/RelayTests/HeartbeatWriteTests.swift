import Foundation
import MailwakePostgres
import RelayService
import StackSupport
import TestSupport
import Testing

/// What a heartbeat writes (docs/relay.md, "Heartbeat cost"): its row's
/// update stays a heap-only (HOT) update, no index entry written.
@Suite("Relay: heartbeat writes", .serialized, .awaitedCleanup)
struct HeartbeatWriteTests {
    typealias Paired = IntakeTests.Paired

    @Test func everyHeartbeatAfterTheFirstIsAHeapOnlyUpdate() async throws {
        let p = try await Paired.start()
        for _ in 0..<6 { #expect(try await HeartbeatTests.beat(p.stack, p.outpost).status == .noContent) }
        // PostgreSQL publishes a backend's counters within its 10 s idle flush: wait for the five updates to show.
        let deadline = ContinuousClock.now + .seconds(30)
        var counts: (Int64, Int64) = (0, 0)
        while counts.0 < 5 {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("\(counts.0) of 5 heartbeat updates counted within 30 s") }
            try await Task.sleep(for: .milliseconds(200))
            counts = try await p.stack.relay.app.database.query("""
                SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'outpost_heartbeats'
                """).single().decode((Int64, Int64).self)
        }
        #expect(counts.0 == 5)
        #expect(counts.1 == counts.0, "every heartbeat update is heap-only (no index on a column it changes)")
    }
}
