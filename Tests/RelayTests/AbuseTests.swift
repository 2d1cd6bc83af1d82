import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
@testable import RelayService
import StackSupport
import TestSupport
import Testing

@Suite("Relay: replay, rate limits, retention, blocking", .serialized, .awaitedCleanup)
struct AbuseTests {
    typealias Paired = IntakeTests.Paired

    /// Blocks `outpost` with accounts' operator route.
    static func block(_ outpostID: String, at stack: RelayStack) async throws {
        let blocked = try await stack.client.execute(.init(
            method: .put, url: stack.accounts.url + "/operator/v1/outposts/\(outpostID)/block",
            headers: ["Authorization": "Bearer \(AccountsInstance.operatorToken)", "Content-Type": "application/json"],
            body: Array(#"{"reason":"abuse"}"#.utf8)))
        #expect(blocked.status == .noContent)
    }

    @Test func aReplayedEnvelopeIsADuplicateAndDoesNotSpendTheOutpostsRate() async throws {
        let p = try await Paired.start { $0.rateLimit = 1; $0.rateBurst = 3 }
        let accepted = try p.envelope()
        #expect(try await p.stack.submit(accepted).status == .accepted)
        // Anyone who saw it on the wire sends it again and again.
        var replayStatuses: [Int] = []
        for _ in 0..<30 { replayStatuses.append(try await p.stack.submit(accepted).status.code) }
        #expect(replayStatuses.allSatisfy { $0 == 202 }, "replays answered \(Set(replayStatuses))")
        // The outpost's own new envelopes still have the budget the replays did not spend.
        for _ in 0..<2 {
            let fresh = try await p.stack.submit(try p.envelope())
            #expect(fresh.status == .accepted, "a fresh envelope after the replays answered \(fresh.status.code) \(fresh.text)")
        }
        let metrics = try await p.stack.send(.get, "/metrics", to: p.stack.relay.adminURL).text
        #expect(metrics.contains("mailwake_relay_envelopes_duplicate_total 30"), "replays are counted as duplicates")
    }

    @Test func theRateLimitHoldsAcrossTwoInstancesOnOneDatabase() async throws {
        let p = try await Paired.start { $0.rateLimit = 1; $0.rateBurst = 3 }
        var second = RelayInstance.configuration(databaseURL: p.stack.relayDatabaseURL, accounts: p.stack.accounts,
                                                 simulator: p.stack.simulator,
                                                 instanceName: "relay-b")
        second.rateLimit = 1
        second.rateBurst = 3
        let other = try await RelayInstance.start(second)
        AwaitedCleanup.register { await other.stop() }
        let started = ContinuousClock.now
        var accepted = 0
        var limited = 0
        for i in 0..<8 {
            let base = i < 4 ? p.stack.relay.url : other.url
            let response = try await p.stack.send(.post, "/v1/envelopes", body: try p.envelope().jsonBytes, to: base)
            if response.status == .accepted { accepted += 1 }
            if response.status == .tooManyRequests {
                limited += 1
                expectProblem(response, .tooManyRequests, "rate-limited")
            }
        }
        // One bucket for both: the burst of 3, plus 1 a second while the test ran.
        let elapsed = (ContinuousClock.now - started).components.seconds + 1
        #expect(accepted <= 3 + Int(elapsed), "\(accepted) of 8 accepted by two instances in \(elapsed) s with a burst of 3 and 1/s")
        #expect(accepted + limited == 8)
    }

    @Test func aBlockedOutpostsQueuedDeliveriesStop() async throws {
        let p = try await Paired.start { $0.accounts.cacheTTL = .zero }
        // APNs answers 503 for now: the delivery waits in the queue for its retry.
        try await p.stack.simulator.setBehaviour(token: p.device.apnsToken, status: 503, reason: "ServiceUnavailable", times: nil,
                                                 latencyMS: nil)
        let envelope = try p.envelope()
        #expect(try await p.stack.submit(envelope).status == .accepted)
        _ = try await p.stack.simulator.waitForDeliveries(count: 1, timeout: 30)
        try await p.stack.waitUntilQueuedForRetry(envelope.context.eventID)
        // The operator blocks the outpost; APNs would accept now.
        try await Self.block(p.outpost.id, at: p.stack)
        try await p.stack.simulator.clearBehaviours()
        let final = try await DeliveryTests.finalStatus(p, envelope.context.eventID, timeout: 30)
        #expect(final.status == .failed)
        #expect(final.apnsReason?.rawValue == "outpost_blocked")
        let pushed = try await p.stack.simulator.deliveries(since: 0).filter { $0.apnsID == envelope.context.eventID && $0.status == 200 }
        #expect(pushed.isEmpty, "a blocked outpost's queued envelope reached APNs")
    }

    @Test func pairingRegistrationsAreLimitedPerOutpost() async throws {
        let stack = try await RelayStack.start { $0.pairingRateOutpost = 2; $0.pairingRateAddress = 0 }
        let outpost = try SimulatedOutpost()
        for _ in 0..<2 {
            let (registration, _) = try outpost.pairingOffer()
            #expect(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity).status == .created)
        }
        let (third, _) = try outpost.pairingOffer()
        let refused = try await stack.send(.post, "/v1/pairings", body: third.jsonBytes, signer: outpost.identity)
        expectProblem(refused, .tooManyRequests, "rate-limited")
        #expect((Int(refused.headers["Retry-After"] ?? "") ?? 0) >= 1)
        // Another outpost is not affected.
        let other = try SimulatedOutpost()
        let (theirs, _) = try other.pairingOffer()
        #expect(try await stack.send(.post, "/v1/pairings", body: theirs.jsonBytes, signer: other.identity).status == .created)
    }

    @Test func forgedRegistrationsDoNotSpendAnOutpostsPairingBudget() async throws {
        let stack = try await RelayStack.start { $0.pairingRateOutpost = 2; $0.pairingRateAddress = 0 }
        let outpost = try SimulatedOutpost()
        let stranger = try P256.Signing.PrivateKey()
        for _ in 0..<5 {
            let (registration, _) = try outpost.pairingOffer()
            expectProblem(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: stranger), .unauthorized,
                          "wrong_key")
        }
        // A replay of a signed registration is refused by its nonce and spends nothing either.
        let (registration, _) = try outpost.pairingOffer()
        let signedAt = Int64(Date().timeIntervalSince1970)
        #expect(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity,
                                     signedAt: signedAt).status == .created)
        let (second, _) = try outpost.pairingOffer()
        #expect(try await stack.send(.post, "/v1/pairings", body: second.jsonBytes, signer: outpost.identity).status == .created)
    }

    @Test func pairingRegistrationsAreLimitedPerClientAddress() async throws {
        let stack = try await RelayStack.start { $0.pairingRateOutpost = 0; $0.pairingRateAddress = 3 }
        var statuses: [Int] = []
        var last: HTTPClient.Response?
        for _ in 0..<4 {
            let outpost = try SimulatedOutpost()  // a new outpost each time: only the address is shared
            let (registration, _) = try outpost.pairingOffer()
            let response = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
            statuses.append(response.status.code)
            last = response
        }
        #expect(statuses == [201, 201, 201, 429], "\(statuses)")
        if let last {
            expectProblem(last, .tooManyRequests, "rate-limited")
            #expect((Int(last.headers["Retry-After"] ?? "") ?? 0) >= 1)
        }
    }

    @Test func aClientAddressCountsAsItselfOrItsIPv6Slash64() {
        #expect(PairingLimiter.addressKey("203.0.113.7") == "203.0.113.7")
        #expect(PairingLimiter.addressKey("::ffff:203.0.113.7") == "203.0.113.7")
        #expect(PairingLimiter.addressKey("2001:db8:1:2:aaaa::1") == PairingLimiter.addressKey("2001:db8:1:2:ffff:1:2:3"))
        #expect(PairingLimiter.addressKey("2001:db8:1:2::1") != PairingLimiter.addressKey("2001:db8:1:3::1"))
    }

    @Test func aRetentionShorterThanTheEnvelopeAgeIsRefusedAtStart() throws {
        do {
            _ = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_MAX_ENVELOPE_AGE": "172800", "MAILWAKE_RELAY_RETENTION": "86400"])
            Issue.record("RETENTION below MAX_ENVELOPE_AGE was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "MAILWAKE_RELAY_RETENTION")
            #expect("\(error)".contains("MAX_ENVELOPE_AGE"), "\(error)")
        }
        // Equal is enough: a row lives as long as its envelope is accepted.
        let c = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_MAX_ENVELOPE_AGE": "86400", "MAILWAKE_RELAY_RETENTION": "86400"])
        #expect(c.retention == c.maxEnvelopeAge)
    }
}
