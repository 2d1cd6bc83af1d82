import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
@testable import RelayService
import StackSupport
import TestSupport
import Testing

/// Catch-up (PROTOCOL.md §12): the relay keeps each device's accepted
/// envelopes, and a device back from an outage (APNs kept one) shows every mail once.
@Suite("Relay: catch-up of notifications APNs dropped", .serialized, .awaitedCleanup)
struct CatchUpTests {
    static func binary(_ name: String) -> String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name).path
    }

    static func device(_ arguments: [String]) async throws -> String {
        try await runOffPool { try ChildProcess.run(Self.binary("mailwake-device"), arguments, directory: nil) }
    }

    /// Registers a pairing for `outpost`, lets `mailwake-device` consent, confirms it; returns the pairing id and the device's agreement
    /// key.
    static func pairSimulator(_ stack: RelayStack, _ outpost: SimulatedOutpost, dir: String) async throws -> (String,
        P256.KeyAgreement.PublicKey) {
        let (registration, link) = try outpost.pairingOffer()
        #expect(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity).status == .created)
        _ = try await device(["pair", link.link, "--dir", dir, "--relay-url", stack.relay.url])
        let fetched = try await stack.send(.get, "/v1/pairings/\(link.pairingID)/consent?wait=5", signer: outpost.identity)
        let consent =
            try PairingConsent.decode(Array(try JSONSerialization.data(withJSONObject: try #require(stack.json(fetched)["consent"]))))
        #expect(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/confirm", signer: outpost.identity).status == .ok)
        return (link.pairingID, try P256.KeyAgreement.PublicKey(x963Representation: consent.deviceAgreementKey))
    }

    static func envelope(_ outpost: SimulatedOutpost, to key: P256.KeyAgreement.PublicKey, pairingID: String,
                         subject: String) throws -> Envelope {
        let context = EncryptionContext(aud: RelayInstance.origin, pairingID: pairingID, eventID: try EventID.generate(),
                                        kind: .notification,
                                        iat: UInt64(Date().timeIntervalSince1970))
        return try EnvelopeSealer(identity: outpost.identity).seal(SimulatedOutpost.sampleContent(subject: subject).jsonBytes, to: key,
                                                                   context: context)
    }

    static func catchUpRows(_ stack: RelayStack, pairingID: String) async throws -> Int64 {
        try await stack.relay.app.database.query("""
                                                 SELECT count(*) FROM catchup_envelopes WHERE pairing_id = \
                                                 \(pairingID)
                                                 """).single().decode(Int64.self, at: 0)
    }

    @Test func twentyMailsWhileOfflineAreShownOnceEachAndAnEndedPairingDropsItsLog() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-catchup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let created = try await Self.device(["init", "--dir", dir])
        let token =
            try #require(created.split(separator: "\n").first { $0.hasPrefix("apns token:") }?.split(separator: " ").last.map(String.init))
        _ = try await Self.device(["register", "--dir", dir, "--accounts", stack.accounts.url, "--origin", AccountsInstance.origin])
        let (outpostA, outpostB) = (try SimulatedOutpost(), try SimulatedOutpost())
        let (pairingA, keyA) = try await Self.pairSimulator(stack, outpostA, dir: dir)
        let (pairingB, keyB) = try await Self.pairSimulator(stack, outpostB, dir: dir)

        try await stack.simulator.markOffline(token: token)
        let start = try await stack.simulator.deliveries().last?.seq ?? 0
        // Pairing B's mails first, then A's 20: APNs keeps the last, one of A's.
        var sentA: [String] = []
        for i in 0..<5 {
            #expect(try await stack.submit(try Self.envelope(outpostB, to: keyB, pairingID: pairingB,
                                                             subject: "B \(i)")).status == .accepted)
        }
        for i in 0..<20 {
            let e = try Self.envelope(outpostA, to: keyA, pairingID: pairingA, subject: "A \(i)")
            #expect(try await stack.submit(e).status == .accepted)
            sentA.append(e.context.eventID)
        }
        let during = try await stack.simulator.waitForDeliveries(count: 25, timeout: 30, since: start)
        #expect(during.allSatisfy { $0.status == 200 && $0.held == true },
                "APNs accepted all 25 and delivered none while the device was offline")
        #expect(try await Self.catchUpRows(stack, pairingID: pairingA) == 20)
        #expect(try await Self.catchUpRows(stack, pairingID: pairingB) == 5)

        // Pairing B ends during the outage: its envelopes leave the log.
        let ended = try await stack.send(.delete, "/v1/pairings/\(pairingB)", signer: outpostB.identity)
        #expect(ended.status == .noContent)
        #expect(try await Self.catchUpRows(stack, pairingID: pairingB) == 0)
        #expect(try await Self.catchUpRows(stack, pairingID: pairingA) == 20)

        let online = try await stack.simulator.markOnline(token: token)
        #expect(online == .init(acceptedWhileOffline: 25, delivered: 1), "APNs held one notification of 25")
        let after = try await stack.simulator.deliveries(since: start).filter { $0.held != true }
        // APNs keeps the last push it received. The relay does not promise acceptance order on the way there: a
        // delivery that waits for the worker (a full window, a look-up) can be overtaken by a later one sent at once,
        // which is why the device reads the log (below) instead of trusting the one push it gets.
        let lastReceived = during.max { $0.seq < $1.seq }
        #expect(after.count == 1 && after.first?.apnsID != nil && after.first?.apnsID == lastReceived?.apnsID,
                "the one delivered is the last APNs received")

        let started = ContinuousClock.now
        let inbox = try await Self.device(["inbox", "--dir", dir, "--apns", stack.simulator.url, "--ca-file", stack.simulator.caFile,
                                           "--relay-url", stack.relay.url])
        let lines = inbox.split(separator: "\n").filter { $0.hasPrefix("{") }
        let shown = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(shown.count == 20, "\(inbox)")
        #expect(Set(shown.map { "\($0["pairing_id"] ?? "")/\($0["event_id"] ?? "")" }).count == 20, "no duplicates")
        #expect(shown.map { $0["event_id"] as? String ?? "" } == sentA, "every mail of A, in acceptance order")
        #expect(shown.allSatisfy { $0["pairing_id"] as? String == pairingA })
        let took = ContinuousClock.now - started
        print(#"{"measure":"inbox-with-catch-up-20","# +
              #""ms":\#(took.components.seconds * 1000 + took.components.attoseconds / 1_000_000_000_000_000)}"#)
        let again = try await Self.device(["inbox", "--dir", dir, "--apns", stack.simulator.url, "--ca-file", stack.simulator.caFile,
                                           "--relay-url", stack.relay.url])
        #expect(!again.contains("{"), "each mail is shown once: \(again)")
    }

    @Test func onlyTheDeviceItselfReadsItsLogExactlyAsAccepted() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let other = try await stack.registeredDevice()
        let pairing = try await stack.pair(outpost, device)
        _ = try await stack.pair(outpost, other)
        var sent: [Envelope] = []
        for i in 0..<5 {
            let e = try outpost.envelope(for: device, pairingID: pairing, content: SimulatedOutpost.sampleContent(subject: "n \(i)"))
            #expect(try await stack.submit(e).status == .accepted)
            sent.append(e)
        }
        let path = "/v1/devices/\(device.id)/envelopes"
        #expect(try await stack.send(.get, path).status == .unauthorized)
        #expect(try await stack.send(.get, path, signer: other.signing).status == .forbidden, "another device")
        #expect(try await stack.send(.get, path, signer: outpost.identity).status == .forbidden, "an outpost")
        for bad in ["?limit=0", "?limit=101", "?limit=x", "?after=not-an-event", "?since=1"] {
            #expect(try await stack.send(.get, path + bad, signer: device.signing).status == .badRequest, "\(bad)")
        }
        let all = try await stack.send(.get, path, signer: device.signing)
        #expect(all.status == .ok)
        let expected = Array(#"{"envelopes":["#.utf8) + sent.map(\.jsonBytes)
            .joined(separator: Array(",".utf8)) + Array(#"],"more":false}"#.utf8)
        #expect(all.body == expected, "the envelopes exactly as submitted, in acceptance order")
        let first = try await stack.send(.get, path + "?limit=2", signer: device.signing)
        let firstPage = try first.decode(RelayResponses.CatchUpPage.self)
        #expect(firstPage.more)
        #expect(firstPage.envelopes.count == 2)
        let rest = try await stack.send(.get, path + "?after=\(sent[1].context.eventID)&limit=100", signer: device.signing)
        let restPage = try rest.decode(RelayResponses.CatchUpPage.self)
        #expect(restPage.eventIDs == sent[2...].map(\.context.eventID))
        #expect(!restPage.more)
        let otherLog = try await stack.send(.get, "/v1/devices/\(other.id)/envelopes", signer: other.signing)
        #expect(try otherLog.decode(RelayResponses.CatchUpPage.self).envelopes.isEmpty, "a device reads its own log only")
    }

    @Test func theLogKeepsTheNewestLimitAndPrunesPastRetention() async throws {
        let stack = try await RelayStack.start(adjust: { $0.catchupLimit = 3; $0.catchupRetention = 3600 }, transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let pairing = try await stack.pair(outpost, device)
        var sent: [String] = []
        for i in 0..<5 {
            let e = try outpost.envelope(for: device, pairingID: pairing, content: SimulatedOutpost.sampleContent(subject: "n \(i)"))
            #expect(try await stack.submit(e).status == .accepted)
            sent.append(e.context.eventID)
        }
        let path = "/v1/devices/\(device.id)/envelopes"
        let read = { () async throws -> [String] in
            try await stack.send(.get, path, signer: device.signing).decode(RelayResponses.CatchUpPage.self).eventIDs
        }
        #expect(try await read() == Array(sent.suffix(3)), "the newest CATCHUP_LIMIT before pruning reaches them")
        let app = stack.relay.app
        let maintenance = QueueMaintenance(database: app.database, configuration: app.configuration,
                                           metrics: RelayMetrics(MetricsRegistry()),
                                           logger: .disabled, clockMS: WallClock.milliseconds)
        // The relay's own maintenance prunes once as it starts, and on a slow machine that can come after the
        // submissions above: count what is left, not what this call deleted.
        #expect(try await maintenance.pruneCatchUp(nowMS: WallClock.milliseconds()) <= 2)
        #expect(try await Self.catchUpRows(stack, pairingID: pairing) == 3, "the 2 oldest of 5 pruned, whoever pruned them")
        #expect(try await read() == Array(sent.suffix(3)))
        #expect(try await maintenance.pruneCatchUp(nowMS: WallClock.milliseconds() + 3_601_000) == 3, "past CATCHUP_RETENTION")
        #expect(try await read().isEmpty)
    }
}
