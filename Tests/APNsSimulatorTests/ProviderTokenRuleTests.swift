import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// The simulator's count of provider tokens per team and key, Apple's rule
/// that a token is replaced at most every 20 minutes, and its movable clock.
@Suite("APNs simulator: provider-token refreshes, the 20-minute rule, the clock", .awaitedCleanup)
struct ProviderTokenRuleTests {
    /// Sends one push carrying `authorization`.
    static func send(_ sim: APNsSimulatorProcess, _ client: HTTPClient, _ authorization: String) async throws -> HTTPClient.Response {
        var push = Push()
        push.authorization = .raw(authorization)
        return try await sim.send(push, with: client)
    }

    @Test func aTokenReplacedWithinTwentyMinutesIsRefusedAndAfterwardsCountedAsARefresh() async throws {
        try await withSimulator(options: [.tokenUpdateInterval(seconds: 1200)]) { sim, client in
            let start = nowSeconds()
            let first = try sim.authorization(issuedAt: start)
            #expect(try await Self.send(sim, client, first).status == .ok)
            #expect(try await Self.send(sim, client, first).status == .ok)
            // A second token one minute later: Apple throttles it.
            try await sim.setClock(offsetSeconds: 60)
            let early = try sim.authorization(issuedAt: start + 60)
            let refused = try await Self.send(sim, client, early)
            #expect(refused.status.code == 429 && refused.reason == "TooManyProviderTokenUpdates")
            #expect(try await Self.send(sim, client, first).status == .ok, "the current token still serves")
            // Twenty minutes after the first: accepted as a refresh; the old one keeps working until it expires.
            try await sim.setClock(offsetSeconds: 1200)
            let second = try sim.authorization(issuedAt: start + 1200)
            #expect(try await Self.send(sim, client, second).status == .ok)
            #expect(try await Self.send(sim, client, first).status == .ok)
            let counts = try await sim.stats().providerTokens(team: sim.teamID)
            #expect(counts.distinctTokens == 2 && counts.refreshes == 1 && counts.tooManyProviderTokenUpdates == 1
                && counts.requestsWithReplacedToken == 1)
            #expect(counts.keyID == sim.keyID)
        }
    }

    @Test func theClockMovesTokenAgesAnHourOnAndBack() async throws {
        try await withSimulator { sim, client in
            let token = try sim.authorization(issuedAt: nowSeconds())
            #expect(try await Self.send(sim, client, token).status == .ok)
            let before = try await sim.clockNowMS()
            try await sim.setClock(offsetSeconds: 3700)
            let after = try await sim.clockNowMS()
            #expect(after - before >= 3_700_000 && after - before < 3_760_000)
            #expect(try await Self.send(sim, client, token).reason == "ExpiredProviderToken")
            // A token issued in the simulator's future-but-now is valid; back to real time, it is too far ahead.
            let ahead = try sim.authorization(issuedAt: nowSeconds() + 3700)
            #expect(try await Self.send(sim, client, ahead).status == .ok)
            try await sim.setClock(offsetSeconds: 0)
            #expect(try await Self.send(sim, client, ahead).reason == "InvalidProviderToken")
            #expect(try await Self.send(sim, client, token).status == .ok)
        }
    }

    @Test func aClockRequestOutOfRangeIsAClearError() async throws {
        try await withSimulator { sim, _ in
            await #expect(throws: (any Error).self) { try await sim.setClock(offsetSeconds: 400_000_000) }
            do {
                try await sim.setClock(offsetSeconds: 400_000_000)
            } catch {
                #expect("\(error)".contains("offset_seconds must be within ten years"))
            }
        }
    }
}
