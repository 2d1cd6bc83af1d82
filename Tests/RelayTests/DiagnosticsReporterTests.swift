import MailwakeCore
import MailwakePostgres
import MailwakeProtocol
@testable import RelayService
import StackSupport
import TestSupport
import Testing

/// The diagnostics reporter against a real accounts service and a relay database no relay runs on: outbox rows leave
/// only once accounts has their records, in requests accounts accepts.
@Suite("Relay: diagnostics reporter", .serialized, .awaitedCleanup)
struct DiagnosticsReporterTests {
    /// A migrated relay database, an accounts service and a reporter between them.
    struct Fixture {
        let relay: PostgresClient
        let accounts: AccountsInstance
        let reporter: DiagnosticsReporter

        static func start() async throws -> Fixture {
            let relay = try await RelayTestDatabase.fresh(prefix: "relay_diagnostics")
            let accounts = try await AccountsInstance.start(postgres: try await PostgresTestServer.shared())
            let client = try AccountsClient(configuration: .init(url: accounts.url, token: AccountsInstance.serviceToken),
                                            logger: .disabled, metrics: MetricsRegistry())
            let reporter = DiagnosticsReporter(database: relay, accounts: client, metrics: RelayMetrics(MetricsRegistry()),
                                               logger: .disabled)
            return Fixture(relay: relay, accounts: accounts, reporter: reporter)
        }

        /// A fresh id in the form accounts takes for devices and pairings: b64u of 16 bytes.
        static func newID() -> String { Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255) }) }

        /// Writes one outbox row of `count` records for `device`, as the outcomes' statement does; returns their events.
        @discardableResult
        func writeBatch(device: String, count: Int, status: String = "sent") async throws -> Set<String> {
            let events = try (0..<count).map { _ in try EventID.generate() }
            var b = PostgresBindings()
            b.append(PostgresArray(events.map { _ in device }))
            b.append(PostgresArray(events.map { _ in Self.newID() }))
            b.append(PostgresArray(events))
            b.append(PostgresArray(events.map { _ in status }))
            b.append(PostgresArray(events.map { _ in String?.none }))
            b.append(PostgresArray(events.indices.map { Int64(1_764_400_000 + $0) }))
            try await relay.execute(PostgresQuery(unsafeSQL: """
                INSERT INTO diagnostics_outbox_batches (device_ids, pairing_ids, event_ids, statuses, apns_reasons, occurred_at)
                VALUES ($1, $2, $3, $4, $5, $6)
                """, bindings: b))
            return Set(events)
        }

        /// The events accounts recorded for `device`.
        func recorded(device: String) async throws -> Set<String> {
            Set(try await accounts.app.database.query("SELECT event_id FROM delivery_diagnostics WHERE device_id = \(device)")
                .map { try $0.decode(String.self, at: 0) })
        }

        func outboxRows(_ table: String) async throws -> Int {
            try await relay.query("SELECT count(*) FROM \(identifier: table)").scalar(Int.self) ?? -1
        }

        func stop() async {
            await relay.close()
            await accounts.stop()
        }
    }

    @Test func anOutboxRowOfMoreRecordsThanOneRequestTakesReachesAccountsWholeInARoundOfItsOwn() async throws {
        let f = try await Fixture.start()
        let (bigDevice, smallDevice) = (Fixture.newID(), Fixture.newID())
        let bigEvents = try await f.writeBatch(device: bigDevice, count: 512)
        let smallEvents = try await f.writeBatch(device: smallDevice, count: 3)
        let first = try await f.reporter.sendRound()
        let big = try await f.recorded(device: bigDevice)
        let smallAfterFirst = try await f.recorded(device: smallDevice)
        let second = try await f.reporter.sendRound()
        let small = try await f.recorded(device: smallDevice)
        let left = try await f.outboxRows("diagnostics_outbox_batches")
        await f.stop()
        #expect(first == true, "the row over a request's records goes alone, and the next one waits")
        #expect(big == bigEvents)
        #expect(smallAfterFirst.isEmpty)
        #expect(second == false)
        #expect(small == smallEvents)
        #expect(left == 0)
    }

    @Test func aRoundTakesWholeRowsUpToOneRequestsRecords() async throws {
        let f = try await Fixture.start()
        let devices = (0..<3).map { _ in Fixture.newID() }
        for device in devices { try await f.writeBatch(device: device, count: 200) }
        let first = try await f.reporter.sendRound()
        var afterFirst: [Int] = []
        for device in devices { afterFirst.append(try await f.recorded(device: device).count) }
        _ = try await f.reporter.sendRound()
        var afterSecond: [Int] = []
        for device in devices { afterSecond.append(try await f.recorded(device: device).count) }
        await f.stop()
        #expect(first == true)
        #expect(afterFirst == [200, 200, 0], "a third row of 200 would make 600 records")
        #expect(afterSecond == [200, 200, 200])
    }

    @Test func aFullRoundSaysThatMoreMayWait() async throws {
        let f = try await Fixture.start()
        for _ in 0..<(DiagnosticsReporter.batchesPerRound + 1) { try await f.writeBatch(device: Fixture.newID(), count: 1) }
        let first = try await f.reporter.sendRound()
        let leftAfterFirst = try await f.outboxRows("diagnostics_outbox_batches")
        let second = try await f.reporter.sendRound()
        let leftAfterSecond = try await f.outboxRows("diagnostics_outbox_batches")
        await f.stop()
        #expect(first == true)
        #expect(leftAfterFirst == 1)
        #expect(second == false)
        #expect(leftAfterSecond == 0)
    }

    @Test func recordsThePreviousReleaseWroteARowEachGoFirst() async throws {
        let f = try await Fixture.start()
        let (oldDevice, newDevice, pairing) = (Fixture.newID(), Fixture.newID(), Fixture.newID())
        let newEvents = try await f.writeBatch(device: newDevice, count: 2)
        let oldEvents = [try EventID.generate(), try EventID.generate()]
        try await f.relay.execute("""
            INSERT INTO diagnostics_outbox (device_id, pairing_id, event_id, status, apns_reason, occurred_at)
            VALUES (\(oldDevice), \(pairing), \(oldEvents[0]), 'failed', 'BadDeviceToken', 1764400000),
                   (\(oldDevice), \(pairing), \(oldEvents[1]), 'sent', NULL, 1764400001)
            """)
        _ = try await f.reporter.sendRound()
        let oldFirst = try await f.recorded(device: oldDevice)
        let newAfterFirst = try await f.recorded(device: newDevice)
        _ = try await f.reporter.sendRound()
        let newAfterSecond = try await f.recorded(device: newDevice)
        let legacyLeft = try await f.outboxRows("diagnostics_outbox")
        await f.stop()
        #expect(oldFirst == Set(oldEvents))
        #expect(newAfterFirst.isEmpty)
        #expect(newAfterSecond == newEvents)
        #expect(legacyLeft == 0)
    }

    @Test func aBatchAccountsRefusesStaysInTheOutbox() async throws {
        let f = try await Fixture.start()
        // Accounts refuses a status over 32 bytes with a 400: the whole request, so the whole row.
        let device = Fixture.newID()
        try await f.writeBatch(device: device, count: 2, status: String(repeating: "s", count: 33))
        await #expect(throws: (any Error).self) { try await f.reporter.sendRound() }
        let recorded = try await f.recorded(device: device)
        let left = try await f.outboxRows("diagnostics_outbox_batches")
        await f.stop()
        #expect(recorded.isEmpty)
        #expect(left == 1)
    }
}
