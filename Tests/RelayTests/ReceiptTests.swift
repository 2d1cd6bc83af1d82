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

/// Receipts (PROTOCOL.md §13): a device's receipt marks its deliveries
/// `displayed`, trims its catch-up log and feeds the per-hop histograms.
@Suite("Relay: receipts of shown notifications", .serialized, .awaitedCleanup)
struct ReceiptTests {
    typealias Outcome = RelayResponses.ReceiptOutcome

    static func nowMS() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func body(_ entries: [(String, String, Int64)]) -> [UInt8] {
        Array(#"{"receipts":["#.utf8)
            + entries.map { Array(#"{"pairing_id":"\#($0.0)","event_id":"\#($0.1)","shown_at":\#($0.2)}"#.utf8) }
                .joined(separator: Array(",".utf8))
            + Array("]}".utf8)
    }

    static func status(_ stack: RelayStack, _ outpost: SimulatedOutpost, _ pairing: String,
                       _ event: String) async throws -> DeliveryStatusReport {
        let response = try await stack.send(.get, "/v1/envelopes/\(pairing)/\(event)", signer: outpost.identity)
        guard response.status == .ok else { throw TestHarnessError("status of \(event): \(response.status.code) \(response.text)") }
        return try DeliveryStatusReport.decode(response.body)
    }

    /// Waits until the relay reports `event` as `status`.
    static func waitForStatus(_ stack: RelayStack, _ outpost: SimulatedOutpost, _ pairing: String, _ event: String,
                              _ status: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await Self.status(stack, outpost, pairing, event).statusText != status {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("\(event) did not become \(status)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func logIDs(_ stack: RelayStack, _ device: SimulatedDevice) async throws -> [String] {
        let page = try await stack.send(.get, "/v1/devices/\(device.id)/envelopes", signer: device.signing)
        return try page.decode(RelayResponses.CatchUpPage.self).eventIDs
    }

    @Test func receiptsMarkDeliveriesDisplayedTrimTheLogAndAreIdempotent() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let pairing = try await stack.pair(outpost, device)
        var events: [String] = []
        for i in 0..<3 {
            let e = try outpost.envelope(for: device, pairingID: pairing, content: SimulatedOutpost.sampleContent(subject: "r \(i)"))
            #expect(try await stack.submit(e).status == .accepted)
            events.append(e.context.eventID)
        }
        for event in events { try await Self.waitForStatus(stack, outpost, pairing, event, "sent") }
        let sent = try await Self.status(stack, outpost, pairing, events[0])
        let acceptedAt = sent.acceptedAt
        #expect(sent.sentAt != nil, "the status carries when APNs accepted it: \(sent)")
        #expect(sent.displayedAt == nil)
        #expect(try await Self.logIDs(stack, device) == events)

        // shown_at far in the future and before acceptance: clamped to [accepted, now].
        let path = "/v1/devices/\(device.id)/receipts"
        let posted = try await stack.send(.post, path,
                                          body: Self.body([(pairing, events[0], Self.nowMS() + 86_400_000), (pairing, events[1], 0)]),
                                          signer: device.signing)
        #expect(posted.status == .ok, "\(posted.text)")
        #expect(try posted.decode(Outcome.self) == Outcome(displayed: 2, duplicate: 0, ignored: 0, trimmed: 2), "\(posted.text)")
        let shown = try await Self.status(stack, outpost, pairing, events[0])
        #expect(shown.status == .displayed)
        let displayedAt = try #require(shown.displayedAt)
        #expect(displayedAt <= Self.nowMS() / 1000 && displayedAt >= acceptedAt, "clamped to now: \(shown)")
        let early = try await Self.status(stack, outpost, pairing, events[1])
        #expect(early.status == .displayed && early.displayedAt == early.acceptedAt,
                "clamped to acceptance: \(early)")
        #expect(try await Self.logIDs(stack, device) == [events[2]], "the shown envelopes left the catch-up log")

        // The same receipts again (and one twice in a request): nothing changes.
        let again = try await stack.send(.post, path,
                                         body: Self.body([(pairing, events[0], 1), (pairing, events[1], 1), (pairing, events[1], 1)]),
                                         signer: device.signing)
        #expect(try again.decode(Outcome.self) == Outcome(displayed: 0, duplicate: 3, ignored: 0, trimmed: 0), "\(again.text)")
        #expect(try await Self.status(stack, outpost, pairing, events[0]).displayedAt == displayedAt,
                "the first receipt's time stays")

        // An unknown event of its own pairing is ignored and counted; the known one still counts.
        let mixed = try await stack.send(.post, path,
                                         body: Self.body([(pairing, try EventID.generate(), Self.nowMS()),
                                                          (pairing, events[2], Self.nowMS())]),
                                         signer: device.signing)
        #expect(try mixed.decode(Outcome.self) == Outcome(displayed: 1, duplicate: 0, ignored: 1, trimmed: 1), "\(mixed.text)")
        #expect(try await Self.logIDs(stack, device).isEmpty)

        let metrics = stack.relay.app.metrics.render()
        #expect(metrics.contains("mailwake_relay_sent_to_displayed_seconds_count 3"), "\(metrics)")
        #expect(metrics.contains("mailwake_relay_accept_to_displayed_seconds_count 3"))
        #expect(metrics.contains(#"mailwake_relay_receipts_total{outcome="duplicate"} 3"#))
        #expect(metrics.contains(#"mailwake_relay_receipts_total{outcome="ignored"} 1"#))
        #expect(!metrics.contains(pairing) && !metrics.contains(device.id) && !metrics.contains(events[0]), "no identifiers in metrics")
    }

    @Test func aReceiptBeforeTheWorkerMarkedItSentEndsItDisplayed() async throws {
        // APNs answers after 3 s: the delivery is `sending` when the receipt comes.
        let stack = try await RelayStack.start(simulatorOptions: [.latencyMS(3000)], transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let pairing = try await stack.pair(outpost, device)
        let e = try outpost.envelope(for: device, pairingID: pairing, content: SimulatedOutpost.sampleContent())
        #expect(try await stack.submit(e).status == .accepted)
        let event = e.context.eventID
        let before = try await Self.status(stack, outpost, pairing, event).statusText
        #expect(before == "queued" || before == "sending")
        let posted = try await stack.send(.post, "/v1/devices/\(device.id)/receipts", body: Self.body([(pairing, event, Self.nowMS())]),
                                          signer: device.signing)
        #expect(try posted.decode(Outcome.self).displayed == 1, "\(posted.text)")
        // The worker's completion comes later and leaves the finished row alone.
        let metrics = stack.relay.app.metrics
        let deadline = ContinuousClock.now + .seconds(30)
        while !metrics.render().contains(#"mailwake_relay_deliveries_total{status="sent"} 1"#) {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("the worker never finished its attempt") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let after = try await Self.status(stack, outpost, pairing, event)
        #expect(after.status == .displayed, "\(after)")
        #expect(after.displayedAt != nil)

        // A Live Activity push not sent yet is not cut short by a receipt: ActivityKit needs it.
        let now = UInt64(Date().timeIntervalSince1970)
        let activity = try outpost.envelope(for: device, pairingID: pairing, content: SimulatedOutpost.sampleContent(),
                                            kind: .liveActivity,
                                            activity: ActivityInfo(id: "code-1", event: .start, timestamp: now, staleDate: now + 600))
        #expect(try await stack.submit(activity).status == .accepted)
        let early = try await stack.send(.post, "/v1/devices/\(device.id)/receipts",
                                         body: Self.body([(pairing, activity.context.eventID, Self.nowMS())]),
                                         signer: device.signing)
        #expect(try early.decode(Outcome.self) == Outcome(displayed: 0, duplicate: 0, ignored: 1, trimmed: 1), "\(early.text)")
        try await Self.waitForStatus(stack, outpost, pairing, activity.context.eventID, "sent")
    }

    @Test func onlyTheDeviceItselfPostsValidReceiptsForItsOwnPairings() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let other = try await stack.registeredDevice()
        let pairing = try await stack.pair(outpost, device)
        let otherPairing = try await stack.pair(outpost, other)
        let e = try outpost.envelope(for: device, pairingID: pairing, content: SimulatedOutpost.sampleContent())
        #expect(try await stack.submit(e).status == .accepted)
        let event = e.context.eventID
        let path = "/v1/devices/\(device.id)/receipts"
        let good = Self.body([(pairing, event, Self.nowMS())])

        expectProblem(try await stack.send(.post, path, body: good), .unauthorized, "signature-required")
        expectProblem(try await stack.send(.post, path, body: good, signer: other.signing), .forbidden, "not-this-device")
        expectProblem(try await stack.send(.post, path, body: good, signer: outpost.identity), .forbidden, "not-this-device")
        // A pairing that is another device's (or nobody's): 403 for the whole request, nothing recorded.
        for foreign in [otherPairing, try PairingID.generate()] {
            let mixed = Self.body([(pairing, event, Self.nowMS()), (foreign, try EventID.generate(), Self.nowMS())])
            expectProblem(try await stack.send(.post, path, body: mixed, signer: device.signing), .forbidden, "not-this-devices-pairing")
        }
        #expect(try await Self.status(stack, outpost, pairing, event).statusText != "displayed", "nothing recorded")
        #expect(try await Self.logIDs(stack, device) == [event])

        // A bit flipped in the signature.
        let header = try RequestSigner(key: device.signing).sign(method: "POST", origin: RelayInstance.origin, pathAndQuery: path,
                                                                 body: good,
                                                                 timestamp: Int64(Date().timeIntervalSince1970))
        var flipped = header.value
        let sigStart = try #require(flipped.range(of: "sig=\"")).upperBound
        let i = flipped.index(sigStart, offsetBy: 10)
        flipped.replaceSubrange(i...i, with: flipped[i] == "A" ? "B" : "A")
        let bad = try await stack.send(.post, path, body: good, headers: [SignatureHeader.name: flipped])
        expectProblem(bad, .unauthorized, "bad_signature")
        // The same signed request twice: the second is a replay.
        let first = try await stack.send(.post, path, body: good, headers: [SignatureHeader.name: header.value])
        #expect(first.status == .ok, "\(first.text)")
        let replay = try await stack.send(.post, path, body: good, headers: [SignatureHeader.name: header.value])
        expectProblem(replay, .unauthorized, "replayed")

        // Strict bodies.
        let entry = #"{"pairing_id":"\#(pairing)","event_id":"\#(event)","shown_at":1}"#
        let tooMany = #"{"receipts":["# + Array(repeating: entry, count: 101).joined(separator: ",") + "]}"
        let cases: [(String, String)] = [
            (#"{"receipts":[]}"#, "no entries"),
            (tooMany, "101 entries"),
            (#"{"receipts":[\#(entry)],"extra":1}"#, "unknown top-level member"),
            (#"{"receipts":[{"pairing_id":"\#(pairing)","event_id":"\#(event)","shown_at":1,"subject":"x"}]}"#, "unknown entry member"),
            (#"{"receipts":[{"pairing_id":"\#(pairing)","event_id":"\#(event)","shown_at":"1"}]}"#, "shown_at a string"),
            (#"{"receipts":[{"pairing_id":"\#(pairing)","event_id":"\#(event)","shown_at":1.5}]}"#, "shown_at a fraction"),
            (#"{"receipts":[{"pairing_id":"\#(pairing)","event_id":"\#(event)","shown_at":-1}]}"#, "shown_at negative"),
            (#"{"receipts":[{"pairing_id":"\#(pairing)","event_id":"not-a-uuid","shown_at":1}]}"#, "bad event id"),
            (#"{"receipts":[{"pairing_id":"short","event_id":"\#(event)","shown_at":1}]}"#, "bad pairing id"),
            (#"{"receipts":[{"pairing_id":"\#(pairing)","event_id":"\#(event)"}]}"#, "missing shown_at"),
            (#"{"receipts":{}}"#, "receipts an object"),
            ("not json", "not JSON"),
        ]
        for (text, label) in cases {
            expectProblem(try await stack.send(.post, path, body: Array(text.utf8), signer: device.signing), .badRequest, "malformed")
            _ = label
        }
        let huge = Array(#"{"receipts":[\#(entry)],"pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"),
                                                                           count: 30_000) + Array(#""}"#.utf8)
        expectProblem(try await stack.send(.post, path, body: huge, signer: device.signing), .contentTooLarge, "too_large")
        #expect(try await Self.status(stack, outpost, pairing, event).status == .displayed,
                "the one good request was recorded")
    }

    @Test func theReceiptPathStoresIdentifiersAndTimesOnly() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let pairing = try await stack.pair(outpost, device)
        let subject = "Receipt secrecy \(UUID().uuidString)"
        let e = try outpost.envelope(for: device, pairingID: pairing, content: SimulatedOutpost.sampleContent(subject: subject))
        #expect(try await stack.submit(e).status == .accepted)
        try await Self.waitForStatus(stack, outpost, pairing, e.context.eventID, "sent")
        let posted = try await stack.send(.post, "/v1/devices/\(device.id)/receipts",
                                          body: Self.body([(pairing, e.context.eventID, Self.nowMS())]),
                                          signer: device.signing)
        #expect(posted.status == .ok)
        let db = stack.relay.app.database
        // The columns the receipt path writes are times, and the row it finishes holds no payload.
        let types = try await db.query("""
            SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'deliveries' AND column_name IN ('sent_ms',
                'displayed_ms')
            ORDER BY column_name
            """).map { try $0.decode((String, String).self) }
        #expect(types.map { "\($0.0):\($0.1)" } == ["displayed_ms:bigint", "sent_ms:bigint"])
        let row = try await db.query("""
            SELECT length(payload), status FROM deliveries WHERE pairing_id = \(pairing) AND event_id = \(e.context.eventID)
            """).single().decode((Int32, String).self)
        #expect(row == (0, "displayed"), "a displayed delivery keeps no payload")
        #expect(try await db.query("SELECT 1 FROM catchup_envelopes WHERE pairing_id = \(pairing)").isEmpty,
                "and no ciphertext in the log")
        // Every text and bytea value of the delivery tables: nothing of the mail.
        let dump = try await db.query("""
            SELECT string_agg(d::text, E'\\n') FROM deliveries d
            """).single().decode(String?.self, at: 0) ?? ""
        #expect(!dump.isEmpty && !dump.contains(subject) && !dump.contains(Base64URL.encode(Array(subject.utf8))),
                "no subject in deliveries")
    }

    @Test func theDeviceSimulatorReceiptsWhatItShowsAndWhatItDropsAsADuplicate() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-receipts-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await CatchUpTests.device(["init", "--dir", dir])
        _ = try await CatchUpTests.device(["register", "--dir", dir, "--accounts", stack.accounts.url, "--origin",
                                           AccountsInstance.origin])
        let outpost = try SimulatedOutpost()
        let (pairing, key) = try await CatchUpTests.pairSimulator(stack, outpost, dir: dir)
        let start = try await stack.simulator.deliveries().last?.seq ?? 0
        var events: [String] = []
        for i in 0..<3 {
            let e = try CatchUpTests.envelope(outpost, to: key, pairingID: pairing, subject: "shown \(i)")
            #expect(try await stack.submit(e).status == .accepted)
            events.append(e.context.eventID)
        }
        _ = try await stack.simulator.waitForDeliveries(count: 3, timeout: 30, since: start)
        for event in events { try await Self.waitForStatus(stack, outpost, pairing, event, "sent") }
        let inbox = ["inbox", "--dir", dir, "--apns", stack.simulator.url, "--ca-file", stack.simulator.caFile]
        let relay = ["--relay-url", stack.relay.url]

        // Each came twice (APNs and the catch-up log): shown once, receipted once.
        let first = try await CatchUpTests.device(inbox + relay)
        #expect(first.split(separator: "\n").filter { $0.hasPrefix("{") }.count == 3, "\(first)")
        #expect(first.contains("receipts: 3 displayed, 0 duplicate, 0 ignored, 3 trimmed from catch-up"), "\(first)")
        for event in events { #expect(try await Self.status(stack, outpost, pairing, event).status == .displayed) }
        #expect(try await CatchUpTests.catchUpRows(stack, pairingID: pairing) == 0)
        let again = try await CatchUpTests.device(inbox + relay)
        #expect(!again.contains("receipts:") && !again.contains("{"), "nothing new, nothing receipted again: \(again)")

        // Shown without --relay-url: the receipt waits in the device's state for a run with it.
        let e = try CatchUpTests.envelope(outpost, to: key, pairingID: pairing, subject: "later")
        #expect(try await stack.submit(e).status == .accepted)
        _ = try await stack.simulator.waitForDeliveries(count: 4, timeout: 30, since: start)
        let offline = try await CatchUpTests.device(inbox)
        #expect(offline.contains(e.context.eventID) && !offline.contains("receipts:"), "\(offline)")
        // As a device that showed it before it kept receipts: the catch-up copy is a duplicate it drops, and receipts.
        let path = dir + "/device.json"
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect((state["pendingReceipts"] as? [Any])?.count == 1)
        state["pendingReceipts"] = nil
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: path))
        let dropped = try await CatchUpTests.device(inbox + relay)
        #expect(!dropped.contains("{") && dropped.contains("receipts: 1 displayed"), "\(dropped)")
        #expect(try await Self.status(stack, outpost, pairing, e.context.eventID).status == .displayed)
        #expect(try await CatchUpTests.catchUpRows(stack, pairingID: pairing) == 0)
    }
}
