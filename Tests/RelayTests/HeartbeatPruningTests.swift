import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakePostgres
@testable import RelayService
import StackSupport
import TestSupport
import Testing

/// PROTOCOL §14 rows of outposts whose pairings have all ended: the periodic
/// maintenance deletes them in batches, and no silence alert comes of them.
@Suite("Relay: pruning heartbeats of outposts without an active pairing", .serialized, .awaitedCleanup)
struct HeartbeatPruningTests {
    typealias Paired = IntakeTests.Paired

    /// The outpost ids that have a heartbeat row, sorted.
    static func rows(_ stack: RelayStack) async throws -> [String] {
        try await stack.relay.app.database.query("""
                                                 SELECT outpost_id FROM outpost_heartbeats ORDER BY \
                                                 outpost_id
                                                 """).map { try $0.decode(String.self, at: 0) }
    }

    @Test func anOutpostWhosePairingsAllEndedLosesItsRowAndIsNeverAlertedSilent() async throws {
        let p = try await Paired.start()
        let app = p.stack.relay.app
        let kept = try SimulatedOutpost()
        _ = try await p.stack.pair(kept, try await p.stack.registeredDevice())
        #expect(try await HeartbeatTests.beat(p.stack, p.outpost).status == .noContent)
        #expect(try await HeartbeatTests.beat(p.stack, kept).status == .noContent)

        // The outpost ends its only pairing: no more heartbeats are recorded for it.
        #expect(try await p.stack.send(.delete, "/v1/pairings/\(p.pairingID)", signer: p.outpost.identity).status == .noContent)
        expectProblem(try await HeartbeatTests.beat(p.stack, p.outpost), .notFound, "outpost-not-paired")

        // Rows of never-paired outposts beyond one batch (5,000), as an older relay left them.
        try await app.database.execute("""
            INSERT INTO outpost_heartbeats (outpost_id, last_seen_ms, mailboxes, failing, state)
            SELECT 'gone-' || lpad(g::text, 5, '0'), 1, 1, 0, 'alive' FROM generate_series(1, 5100) g
            """)
        let maintenance = QueueMaintenance(database: app.database, configuration: app.configuration,
                                           metrics: RelayMetrics(MetricsRegistry()),
                                           logger: .disabled, clockMS: WallClock.milliseconds)
        try await maintenance.prune()
        #expect(try await Self.rows(p.stack) == [kept.id], "only the outpost with an active pairing keeps its row")

        // Paired again, the outpost is not silent before its first new heartbeat, however long ago its last one was.
        _ = try await p.stack.pair(p.outpost, try await p.stack.registeredDevice())
        let later = SilenceWatch(database: app.database, configuration: app.configuration, logger: .disabled,
                                 clockMS: { WallClock.milliseconds() + 2 * app.configuration.outpostSilence * 1000 })
        #expect(try await later.check() == [kept.id])
        #expect(try await app.database.query("""
            SELECT 1 FROM deliveries WHERE kind = 'system' AND outpost_id = \(p.outpost.id)
            """).isEmpty, "no alert queued for the outpost whose pairings had ended")
    }
}
