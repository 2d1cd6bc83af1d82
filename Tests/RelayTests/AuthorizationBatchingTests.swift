import Foundation
import MailwakeCore
import MailwakeHTTPTypes
import MailwakeProtocol
import RelayService
import StackSupport
import TestSupport
import Testing

@Suite("Relay: authorization look-ups at accounts", .serialized, .awaitedCleanup)
struct AuthorizationBatchingTests {
    /// Accounts' answered requests on `route`, from its request log.
    static func calls(_ stack: RelayStack, route: String, after index: Int = 0) -> Int {
        stack.accounts.logs.all.dropFirst(index).filter { $0.message == "request" && $0.metadata["route"] == .string(route) }.count
    }

    @Test func concurrentCacheMissesShareAccountsCalls() async throws {
        // No cache: every envelope needs its device's authorization twice
        // (intake, then the delivery), all from accounts.
        // Sixteen pairings of one outpost: more than its default pairing rate allows in a minute.
        let stack = try await RelayStack.start(trialDays: 7) {
            $0.accounts.cacheTTL = .zero
            $0.pairingRateOutpost = 0
        }
        let outpost = try SimulatedOutpost()
        var pairs: [(SimulatedDevice, String)] = []
        for _ in 0..<16 {
            let device = try await stack.registeredDevice()
            pairs.append((device, try await stack.pair(outpost, device)))
        }
        let envelopes = try pairs.map { try outpost.envelope(for: $0.0, pairingID: $0.1, content: SimulatedOutpost.sampleContent()) }
        let before = stack.accounts.logs.all.count
        let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
            for envelope in envelopes { group.addTask { try await stack.submit(envelope).status } }
            return try await group.reduce(into: [HTTPStatus]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == .accepted })
        let delivered = try await stack.simulator.waitForDeliveries(count: envelopes.count, timeout: 20)
        #expect(Set(delivered.map(\.apnsID)) == Set(envelopes.map(\.context.eventID)))
        let lookups = 2 * envelopes.count
        let batched = Self.calls(stack, route: "/internal/v1/authorizations", after: before)
        #expect(batched >= 1)
        // One call per look-up would be 32; batches put several devices in one
        // (about 19 calls on the development machine).
        #expect(batched < lookups, "\(lookups) look-ups took \(batched) calls")
        #expect(Self.calls(stack, route: "/internal/v1/devices/{id}/authorization") == 0, "the relay asks in batches only")
    }
}
