import APNsSimulatorCore
import Foundation
import MailwakeHTTPClient
import TestSupport
import Testing

/// What the simulator keeps of the requests it received.
@Suite(.awaitedCleanup) struct RecordingTests {
    @Test func theRecordFileHoldsOneJSONLinePerRequest() async throws {
        try await withSimulator { sim, client in
            var pushes: [Push] = []
            for n in 0..<3 {
                var push = Push()
                push.token = deviceToken(n)
                pushes.append(push)
                _ = try await sim.send(push, with: client)
            }
            var refused = Push()
            refused.priority = "high"
            _ = try await sim.send(refused, with: client)

            let lines = try sim.recordedLines()
            #expect(lines.count == 4)
            let records = try lines.map { try JSONDecoder().decode(APNsSimulatorProcess.Delivery.self, from: Data($0.utf8)) }
            #expect(records.map(\.seq) == [1, 2, 3, 4])
            #expect(records.prefix(3).map(\.deviceToken) == pushes.map(\.token))
            #expect(records.prefix(3).allSatisfy { $0.status == 200 && $0.payloadBytes == Push().payload })
            #expect(records[3].status == 400 && records[3].reason == "BadPriority")
            // Every line is a flat JSON object with every field, nulls included.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[3].utf8)) as? [String: Any])
            #expect(Set(object.keys) == [
                "seq", "received_at_ms", "connection", "stream", "device_token", "push_type", "topic", "priority", "apns_id",
                "collapse_id", "expiration", "jwt_kid", "jwt_iss", "jwt_iat", "payload", "status", "reason",
            ])
            #expect(object["priority"] is NSNull, "a priority that is not a number is recorded as null")
        }
    }

    @Test func deliveriesArePagedBySequenceNumber() async throws {
        try await withSimulator { sim, client in
            for n in 0..<5 {
                var push = Push()
                push.token = deviceToken(n)
                _ = try await sim.send(push, with: client)
            }
            #expect(try await sim.deliveries(since: 0).map(\.seq) == [1, 2, 3, 4, 5])
            #expect(try await sim.deliveries(since: 3).map(\.deviceToken) == [deviceToken(3), deviceToken(4)])
            #expect(try await sim.deliveries(since: 5).isEmpty)
        }
    }

    @Test func waitingForDeliveriesReturnsOnceEnoughArrived() async throws {
        try await withSimulator { sim, client in
            let sender = Task {
                for n in 0..<3 {
                    try await Task.sleep(for: .milliseconds(50))
                    var push = Push()
                    push.token = deviceToken(n)
                    _ = try await sim.send(push, with: client)
                }
            }
            let received = try await sim.waitForDeliveries(count: 3, timeout: 30)
            try await sender.value
            #expect(received.map(\.deviceToken) == (0..<3).map(deviceToken))
            await #expect(throws: TestHarnessError.self) { try await sim.waitForDeliveries(count: 4, timeout: 0.2) }
        }
    }

    @Test func clearingDeliveriesKeepsTheSequenceGoing() async throws {
        try await withSimulator { sim, client in
            _ = try await sim.send(Push(), with: client)
            _ = try await sim.send(Push(), with: client)
            try await sim.clearDeliveries()
            #expect(try await sim.deliveries().isEmpty)
            _ = try await sim.send(Push(), with: client)
            #expect(try await sim.deliveries().map(\.seq) == [3])
            #expect(try sim.recordedLines().count == 3, "the record file is not cleared")
        }
    }

    @Test func memoryKeepsOnlyTheLastDeliveries() async throws {
        try await withSimulator(options: [.keepDeliveries(3)]) { sim, client in
            for n in 0..<5 {
                var push = Push()
                push.token = deviceToken(n)
                _ = try await sim.send(push, with: client)
            }
            #expect(try await sim.deliveries().map(\.seq) == [3, 4, 5])
            #expect(try await sim.stats().deliveriesHeld == 3)
        }
    }

    @Test func statsCountByStatusAndReason() async throws {
        try await withSimulator { sim, client in
            _ = try await sim.send(Push(), with: client)
            _ = try await sim.send(Push(), with: client)
            var bad = Push()
            bad.topic = nil
            _ = try await sim.send(bad, with: client)
            let stats = try await sim.stats()
            #expect(stats.total == 3)
            #expect(stats.byStatus == ["200": 2, "400": 1])
            #expect(stats.byReason == ["MissingTopic": 1])
            #expect(stats.connections == 1)
            #expect(stats.connectionsAccepted >= 2, "the control client has its own connection")
        }
    }
}
