import APNsSimulatorCore
import Foundation
import MailwakeHTTPClient
import TestSupport
import Testing

/// Per-token behaviours and random failure rates.
@Suite(.awaitedCleanup) struct FailureInjectionTests {
    @Test func aBehaviourWithTimesAnswersThatManyRequestsThenStops() async throws {
        try await withSimulator { sim, client in
            let unlucky = deviceToken(1), other = deviceToken(2)
            try await sim.setBehaviour(token: unlucky, status: 429, reason: "TooManyRequests", times: 2)
            var push = Push()
            push.token = unlucky
            var statuses: [Int] = []
            for _ in 0..<3 { statuses.append(try await sim.send(push, with: client).status.code) }
            #expect(statuses == [429, 429, 200])
            push.token = other
            #expect(try await sim.send(push, with: client).status.code == 200, "other tokens are not affected")
        }
    }

    @Test func aBehaviourWithoutTimesAnswersEveryRequestUntilCleared() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.token = deviceToken(7)
            try await sim.setBehaviour(token: push.token, status: 500)
            for _ in 0..<3 {
                let response = try await sim.send(push, with: client)
                #expect(response.status.code == 500 && response.reason == "InternalServerError")
            }
            try await sim.clearBehaviours()
            let response = try await sim.send(push, with: client)
            #expect(response.status == .ok)
        }
    }

    @Test func a410CarriesTheTimestampOfTheBehaviour() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.token = deviceToken(3)
            try await sim.setBehaviour(token: push.token.uppercased(), status: 410, reason: "Unregistered", times: 1,
                                       timestamp: 1_700_000_000_123)
            let response = try await sim.send(push, with: client)
            #expect(response.status.code == 410)
            #expect(response.reason == "Unregistered")
            #expect(response.timestamp == 1_700_000_000_123)
        }
    }

    @Test func a410WithoutATimestampCarriesTheTimeOfTheRequest() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.token = deviceToken(4)
            try await sim.setBehaviour(token: push.token, status: 410, reason: "ExpiredToken")
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            let response = try await sim.send(push, with: client)
            let after = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(response.reason == "ExpiredToken")
            let timestamp = try #require(response.timestamp)
            #expect(timestamp >= before - 5 && timestamp <= after + 5)
        }
    }

    @Test func refusedRequestsAreNotSubjectToBehaviours() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.token = deviceToken(5)
            try await sim.setBehaviour(token: push.token, status: 410, times: 1)
            push.authorization = .none
            #expect(try await sim.send(push, with: client).reason == "MissingProviderToken")
            push.authorization = .valid
            #expect(try await sim.send(push, with: client).status.code == 410, "the behaviour was still unused")
        }
    }

    @Test(arguments: [(410, "Unregistered"), (429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable")])
    func aRateOfOneGivesThatStatusWithApplesReason(status: Int, reason: String) async throws {
        try await withSimulator { sim, client in
            try await sim.configure(rates: [status: 1.0])
            for n in 0..<3 {
                var push = Push()
                push.token = deviceToken(n)
                let response = try await sim.send(push, with: client)
                #expect(response.status.code == status && response.reason == reason)
                #expect((response.timestamp != nil) == (status == 410), "only 410 carries a timestamp")
            }
            try await sim.configure(rates: [:])
            let response = try await sim.send(Push(), with: client)
            #expect(response.status == .ok)
        }
    }

    @Test func ratesAreSharesOfTheRequests() async throws {
        try await withSimulator { sim, client in
            try await sim.configure(rates: [503: 0.5])
            var codes: [Int] = []
            for _ in 0..<200 { codes.append(try await sim.send(Push(), with: client).status.code) }
            #expect(Set(codes) == [200, 503])
            let stats = try await sim.stats()
            #expect(stats.count(status: 503) + stats.count(status: 200) == 200)
            #expect(stats.byReason["ServiceUnavailable"] == stats.count(status: 503))
        }
    }

    @Test func impossibleSettingsAreRefused() async throws {
        try await withSimulator { sim, _ in
            await #expect(throws: TestHarnessError.self) { try await sim.configure(rates: [410: 0.7, 503: 0.7]) }
            await #expect(throws: TestHarnessError.self) { try await sim.configure(rates: [200: 0.1]) }
            await #expect(throws: TestHarnessError.self) { try await sim.setBehaviour(token: "not-hex", status: 410) }
            await #expect(throws: TestHarnessError.self) { try await sim.setBehaviour(token: deviceToken(1), status: 302) }
        }
    }
}
