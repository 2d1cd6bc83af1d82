import Foundation
import MailwakePostgres
import MailwakeProtocol
import StackSupport
import TestSupport
import Testing

/// Three `mailwake-relay serve` processes on one PostgreSQL, one APNs
/// simulator, and a clock the test moves for all four, over a simulated two
/// hours with an envelope a simulated minute.
@Suite("Relay: one APNs provider token for three instances", .serialized, .awaitedCleanup)
struct SharedTokenReplicaTests {
    /// What one run saw.
    struct Outcome: CustomStringConvertible {
        var distinctTokens = 0
        var refreshes = 0
        var tooManyUpdates = 0
        var replacedTokenRequests = 0
        var envelopes = 0
        var delivered = 0
        var distinctIssuedAt = 0
        /// Seconds from the first token's `iat` to each later one's.
        var issuedAtOffsets: [Int64] = []
        var description: String {
            "tokens=\(distinctTokens) refreshes=\(refreshes) too_many_provider_token_updates=\(tooManyUpdates) "
                + """
                  requests_with_replaced_token=\(replacedTokenRequests) envelopes=\(envelopes) delivered=\(delivered) \
                  distinct_iat=\(distinctIssuedAt) iat_offsets=\(issuedAtOffsets)
                  """
        }
    }

    static let refreshSeconds: Int64 = 1500
    static let simulatedSeconds: Int64 = 7200
    static let stepSeconds: Int64 = 60

    /// Runs the three instances for two simulated hours; `shared` false is each instance signing its own token (the code before).
    static func run(shared: Bool) async throws -> Outcome {
        let stack = try await RelayStack.start { c in
            // The stack's in-process relay only pairs; it never pushes and never touches the shared token.
            c.apns.sharedToken = false
        }
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let pairingID = try await stack.pair(outpost, device)
        await stack.relay.stop()

        let clockFile = try ScratchClockFile()
        var relays: [RelayProcess] = []
        for i in 0..<3 {
            let (port, adminPort) = (try PortAllocator.freePort(), try PortAllocator.freePort())
            let config = try RelayProcess.writeConfiguration(
                databaseURL: stack.relayDatabaseURL, accounts: stack.accounts, simulator: stack.simulator, port: port,
                adminPort: adminPort,
                extra: ["INSTANCE_NAME": "relay-\(i)", "APNS_TOKEN_REFRESH": String(refreshSeconds),
                        "APNS_TEST_CLOCK_FILE": clockFile.path,
                        "APNS_TOKEN_SHARED": String(shared)])
            relays.append(try await RelayProcess.start(configFile: config, port: port, adminPort: adminPort, name: "relay-token-\(i)"))
        }

        let database = PostgresClient(configuration: try .init(url: stack.relayDatabaseURL), logger: .disabled)
        AwaitedCleanup.register { await database.close() }
        var outcome = Outcome()
        var events: [String] = []
        var cursor: UInt64 = 0
        var offset: Int64 = 0
        var step = 0
        while offset <= simulatedSeconds {
            let envelope = try outpost.envelope(for: device, pairingID: pairingID, content: SimulatedOutpost.sampleContent())
            let eventID = envelope.context.eventID
            let response = try await stack.send(.post, "/v1/envelopes", body: envelope.jsonBytes, to: relays[step % 3].url)
            #expect(response.status == .accepted)
            events.append(eventID)
            // Wait for APNs's first answer to this envelope (a refused one is retried later by the relay).
            let deadline = ContinuousClock.now + .seconds(30)
            answered: while true {
                let more = try await stack.simulator.deliveries(since: cursor)
                if let last = more.last { cursor = last.seq }
                if more.contains(where: { $0.apnsID == eventID }) { break answered }
                guard ContinuousClock.now < deadline else { throw TestHarnessError("APNs never saw envelope \(step) at +\(offset) s") }
                try await Task.sleep(for: .milliseconds(5))
            }
            if shared { try await waitForRenewalIfDue(database, offset: offset) }
            offset += stepSeconds
            step += 1
            try await stack.simulator.setClock(offsetSeconds: offset)
            try clockFile.set(offsetSeconds: offset)
        }
        outcome.envelopes = events.count
        // Every envelope accepted (200) once; refused ones had their retry.
        let wanted = Set(events)
        let deadline = ContinuousClock.now + .seconds(shared ? 30 : 5)
        var sent: Set<String> = []
        var issuedAt: Set<Int64> = []
        repeat {
            let all = try await stack.simulator.deliveries(since: 0)
            sent = Set(all.filter { $0.status == 200 }.compactMap(\.apnsID)).intersection(wanted)
            issuedAt = Set(all.filter { $0.status == 200 }.compactMap(\.jwtIssuedAt))
            if sent.count == wanted.count { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        outcome.delivered = sent.count
        outcome.distinctIssuedAt = issuedAt.count
        let sorted = issuedAt.sorted()
        outcome.issuedAtOffsets = sorted.map { $0 - (sorted.first ?? 0) }
        let counts = try await stack.simulator.stats().providerTokens(team: stack.simulator.teamID)
        outcome.distinctTokens = counts.distinctTokens
        outcome.refreshes = counts.refreshes
        outcome.tooManyUpdates = counts.tooManyProviderTokenUpdates
        outcome.replacedTokenRequests = counts.requestsWithReplacedToken
        for relay in relays { await relay.stop() }
        print("""
              three instances, \(simulatedSeconds / 60) simulated minutes, APNS_TOKEN_REFRESH=\(refreshSeconds), shared=\(shared): \
              \(outcome)
              """)
        return outcome
    }

    /// When the shared token is due on the relays' clock, the envelope just sent nudged its instance: waits
    /// for the renewal (the event), so the simulated time does not run ahead of it on a busy machine.
    static func waitForRenewalIfDue(_ database: PostgresClient, offset: Int64) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let issuedAt = try await database.query("SELECT issued_at FROM apns_provider_tokens").first.map { try $0.decode(Int64.self,
                at: 0) } ?? 0
            if Int64(Date().timeIntervalSince1970) + offset - issuedAt < refreshSeconds { return }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("the due shared token was not renewed at +\(offset) s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func threeInstancesUseOneTokenAtATimeForTwoSimulatedHours() async throws {
        let outcome = try await Self.run(shared: true)
        let expected = Double(Self.simulatedSeconds) / Double(Self.refreshSeconds)
        #expect(outcome.tooManyUpdates == 0, "\(outcome)")
        #expect(abs(Double(outcome.refreshes) - expected) <= 1, "\(outcome)")
        // One token at a time: every token APNs saw was a refresh of the one before, never a rival.
        #expect(outcome.distinctTokens == outcome.refreshes + 1, "\(outcome)")
        #expect(outcome.distinctIssuedAt == outcome.distinctTokens, "\(outcome)")
        #expect(outcome.delivered == outcome.envelopes, "\(outcome)")
    }

    /// The code before (each instance signs its own): the same run trips Apple's 20-minute rule.
    @Test func withoutSharingTheSameRunTripsTheTwentyMinuteRule() async throws {
        let outcome = try await Self.run(shared: false)
        #expect(outcome.tooManyUpdates > 0, "\(outcome)")
    }
}
