import Foundation
import MailwakeCore
import MailwakePostgres
@testable import RelayService
import StackSupport
import TestSupport
import Testing

/// The queue-backlog signals (`mailwake_relay_queue_oldest_age_seconds`,
/// `mailwake_relay_queue_due`, the `/admin` page) count only deliveries that
/// are due, not ones waiting out a deliberate retry.
@Suite("Relay: queue backlog counts due deliveries only", .serialized, .awaitedCleanup)
struct BacklogTests {
    typealias Paired = IntakeTests.Paired

    @Test func aDeliveryWaitingOutARetryIsNotABacklogUntilItIsDue() async throws {
        let p = try await Paired.start()
        // APNs answers 503 for this device: the delivery goes back to the queue with a retry delay.
        try await p.stack.simulator.setBehaviour(token: p.device.apnsToken, status: 503, reason: "ServiceUnavailable", times: 1000)
        let envelope = try p.envelope()
        #expect(try await p.stack.submit(envelope).status == .accepted)
        let app = p.stack.relay.app
        let eventID = envelope.context.eventID
        // Once it waits out a retry (status queued, attempted), it is pinned there: accepted ten minutes
        // ago, its next attempt an hour away. A deliberate wait, not a backlog. (Conditional on `queued`, so
        // an attempt in flight cannot overwrite it.)
        let deadline = ContinuousClock.now + .seconds(30)
        let now = WallClock.milliseconds()
        while try await app.database.execute("""
            UPDATE deliveries SET accepted_ms = \(now - 600_000), next_attempt_ms = \(now + 3_600_000)
            WHERE event_id = \(eventID) AND status = 'queued' AND attempts >= 1
            """) == 0 {
            guard ContinuousClock.now < deadline else { Issue.record("the delivery was not retried"); return }
            try await Task.sleep(for: .milliseconds(20))
        }
        let registry = MetricsRegistry()
        let metrics = RelayMetrics(registry)
        try await QueueMaintenance(database: app.database, configuration: app.configuration, metrics: metrics, logger: .disabled,
                                   clockMS: WallClock.milliseconds).updateGauges()
        #expect(registry.sample("mailwake_relay_queue_depth") == 1)
        #expect(registry.sample("mailwake_relay_queue_due") == 0)
        #expect(registry.sample("mailwake_relay_queue_oldest_age_seconds") == 0)
        let waiting = try await app.statusSnapshot()
        #expect(waiting.queued == 1)
        #expect(waiting.dueNow == 0)
        #expect(waiting.oldestAgeSeconds == 0)

        // Seen from 90 s after its retry time it is due, and late by those 90 s (not by the 10 minutes since it was accepted).
        let later: @Sendable () -> Int64 = { WallClock.milliseconds() + 3_600_000 + 90_000 }
        try await QueueMaintenance(database: app.database, configuration: app.configuration, metrics: metrics, logger: .disabled,
                                   clockMS: later).updateGauges()
        #expect(registry.sample("mailwake_relay_queue_due") == 1)
        let overdue = try #require(registry.sample("mailwake_relay_queue_oldest_age_seconds"))
        #expect(overdue >= 90 && overdue < 120, "\(overdue)")
    }

    @Test func thePerIPConnectionLimitIsASettingWithTheDefaultUnchanged() throws {
        #expect(try CacheAndConfigurationTests.load([:]).perIPConnectionLimit == 128)
        let configured = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_PER_IP_CONNECTION_LIMIT": "7"])
        #expect(configured.perIPConnectionLimit == 7)
        #expect(try CacheAndConfigurationTests.load([:]).accounts.checkInterval == .seconds(10))
    }
}
