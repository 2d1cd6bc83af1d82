import Foundation
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
import StackSupport
import TestSupport
import Testing

@Suite("Relay: durable queue, several instances, crashes and restarts", .serialized, .awaitedCleanup)
struct QueueTests {
    typealias Paired = IntakeTests.Paired

    /// Waits until the simulator accepted (200) every one of `events`; returns how often each was accepted.
    static func waitUntilSent(_ simulator: APNsSimulatorProcess, _ events: Set<String>, timeout: Double) async throws -> [String: Int] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            var counts: [String: Int] = [:]
            for d in try await simulator.deliveries(since: 0) where d.status == 200 {
                if let id = d.apnsID { counts[id, default: 0] += 1 }
            }
            if events.isSubset(of: Set(counts.keys)) || ContinuousClock.now > deadline { return counts }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    @Test func twoInstancesOnOneDatabaseDeliverEachEnvelopeOnce() async throws {
        let p = try await Paired.start()
        var second = RelayInstance.configuration(databaseURL: p.stack.relayDatabaseURL, accounts: p.stack.accounts,
                                                 simulator: p.stack.simulator,
                                                 instanceName: "relay-b")
        second.rateLimit = 100_000
        let other = try await RelayInstance.start(second)
        AwaitedCleanup.register { await other.stop() }
        let envelopes = try (0..<400).map { _ in try p.outpost.envelope(for: p.device, pairingID: p.pairingID,
                                                                        content: SimulatedOutpost.sampleContent()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, envelope) in envelopes.enumerated() {
                let base = i % 2 == 0 ? p.stack.relay.url : other.url
                group.addTask { let status = try await p.stack.send(.post, "/v1/envelopes", body: envelope.jsonBytes,
                                                                    to: base).status; #expect(status == .accepted) }
                if i % 16 == 15 { try await group.waitForAll() }
            }
            try await group.waitForAll()
        }
        let events = Set(envelopes.map(\.context.eventID))
        let counts = try await Self.waitUntilSent(p.stack.simulator, events, timeout: 60)
        #expect(Set(counts.keys) == events)
        #expect(counts.values.allSatisfy { $0 == 1 }, "\(counts.values.filter { $0 > 1 }.count) envelopes were pushed more than once")
        let sentA = try await p.stack.send(.get, "/metrics", to: p.stack.relay.adminURL).text
        let sentB = try await p.stack.send(.get, "/metrics", to: other.adminURL).text
        #expect(sentA.contains(#"mailwake_relay_deliveries_total{status="sent"}"#))
        #expect(sentB.contains(#"mailwake_relay_deliveries_total{status="sent"}"#))
    }

    @Test func aDeliveryClaimedByACrashedInstanceComesBackWhenItsLeaseEnds() async throws {
        let p = try await Paired.start()
        let envelope = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        let nowMS = Int64(Date().timeIntervalSince1970 * 1000)
        let database = PostgresClient(configuration: try .init(url: p.stack.relayDatabaseURL), logger: .disabled)
        // What a crashed instance leaves behind: a claimed row whose lease just ran out.
        try await database.execute("""
            INSERT INTO deliveries (pairing_id, event_id, outpost_id, device_id, kind, payload, envelope_hash, iat, deadline_at, status,
                attempts,
                                    next_attempt_ms, accepted_ms, updated_ms, claimed_by)
            VALUES (\(p.pairingID), \(envelope.context.eventID), \(p.outpost.id), \(p.device.id), 'notification',
                \(APNsPayload.build(for: envelope)),
                    \(SHA256.hash(envelope.jsonBytes).bytes), \(Int64(envelope.context.iat)), \(Int64(envelope.context.iat) + 86400),
                        'sending', 1,
                    \(nowMS - 1), \(nowMS - 60_000), \(nowMS - 60_000), 'crashed-instance')
            """)
        await database.close()
        let final = try await DeliveryTests.finalStatus(p, envelope.context.eventID)
        #expect(final.status == .sent)
        #expect(final.attempts == 2)
    }

    @Test func nothingAcknowledgedIsLostWhenPostgreSQLRestartsMidLoad() async throws {
        let postgres = try await PostgresTestServer.start()
        AwaitedCleanup.register { await postgres.kill() }
        let stack = try await RelayStack.start(postgres: postgres)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let pairingID = try await stack.pair(outpost, device)
        let envelopes = try (0..<600).map { _ in try outpost.envelope(for: device, pairingID: pairingID,
                                                                      content: SimulatedOutpost.sampleContent()) }
        let load = try EnvelopeLoad(url: stack.relay.url)
        let deadline = ContinuousClock.now + .seconds(90)
        let running = Task { await load.run(envelopes, concurrency: 6, deadline: deadline) }
        while load.acknowledgedEvents.count < 150 { try await Task.sleep(for: .milliseconds(20)) }
        try await postgres.restart()
        await running.value
        let acknowledged = load.acknowledgedEvents
        #expect(acknowledged.count == envelopes.count, "every envelope is acknowledged once the database is back")
        let counts = try await Self.waitUntilSent(stack.simulator, acknowledged, timeout: 60)
        #expect(acknowledged.subtracting(counts.keys).isEmpty,
                "\(acknowledged.subtracting(counts.keys).count) acknowledged envelopes never reached APNs")
    }

    @Test func nothingAcknowledgedIsLostWhenTheRelayIsKilledMidLoad() async throws {
        let stack = try await RelayStack.start(simulatorOptions: [.latencyMS(30)])
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let pairingID = try await stack.pair(outpost, device)
        let (port, adminPort) = (try PortAllocator.freePort(), try PortAllocator.freePort())
        let config = try RelayProcess.writeConfiguration(databaseURL: stack.relayDatabaseURL, accounts: stack.accounts,
                                                         simulator: stack.simulator,
                                                         port: port, adminPort: adminPort)
        // The in-process relay of the stack shares the database: stop it so only the process delivers.
        await stack.relay.stop()
        let first = try await RelayProcess.start(configFile: config, port: port, adminPort: adminPort, name: "relay-killed")
        let envelopes = try (0..<800).map { _ in try outpost.envelope(for: device, pairingID: pairingID,
                                                                      content: SimulatedOutpost.sampleContent()) }
        let load = try EnvelopeLoad(url: first.url)
        let running = Task { await load.run(envelopes, concurrency: 8, deadline: ContinuousClock.now + .seconds(120)) }
        while load.acknowledgedEvents.count < 300 { try await Task.sleep(for: .milliseconds(10)) }
        await first.kill()
        let (port2, admin2) = (try PortAllocator.freePort(), try PortAllocator.freePort())
        let config2 = try RelayProcess.writeConfiguration(databaseURL: stack.relayDatabaseURL, accounts: stack.accounts,
                                                          simulator: stack.simulator,
                                                          port: port2, adminPort: admin2)
        let second = try await RelayProcess.start(configFile: config2, port: port2, adminPort: admin2, name: "relay-restarted")
        load.retarget(second.url)
        await running.value
        let acknowledged = load.acknowledgedEvents
        #expect(acknowledged.count == envelopes.count)
        let counts = try await Self.waitUntilSent(stack.simulator, acknowledged, timeout: 90)
        let lost = acknowledged.subtracting(counts.keys)
        #expect(lost.isEmpty, "\(lost.count) acknowledged envelopes never reached APNs")
        let duplicates = counts.values.filter { $0 > 1 }.count
        print("""
              kill-and-restart: \(acknowledged.count) acknowledged, \(lost.count) lost, \(duplicates) pushed twice (same apns-id and \
              collapse id)
              """)
    }
}
