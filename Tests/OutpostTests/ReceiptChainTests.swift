import Foundation
import MailwakeCore
import MailwakeProtocol
import OutpostService
import StackSupport
import TestSupport
import Testing

/// Receipts at the outpost (PROTOCOL.md §13): a sent delivery is followed
/// until the relay says `displayed` (or its deadline), and `history` shows the
/// whole chain: mail received → noticed → relay accepted → APNs sent → displayed.
@Suite("Outpost: displayed deliveries and their per-hop chain", .serialized, .awaitedCleanup)
struct ReceiptChainTests {
    static func receipt(_ stack: RelayStack, _ device: SimulatedDevice, pairingID: String, eventID: String) async throws {
        let shownAt = Int64(Date().timeIntervalSince1970 * 1000)
        let body = Array(#"{"receipts":[{"pairing_id":"\#(pairingID)","event_id":"\#(eventID)","shown_at":\#(shownAt)}]}"#.utf8)
        let r = try await stack.send(.post, "/v1/devices/\(device.id)/receipts", body: body, signer: device.signing)
        guard r.status == .ok else { throw TestHarnessError("the receipt answered \(r.status.code): \(r.text)") }
    }

    @Test func aSentDeliveryBecomesDisplayedWithTheWholeChainInHistoryAndMetrics() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let paired = try await outpost.pair(device, through: stack)
        let metrics = OutpostMetrics()
        let notifier = OutpostNotifier(store: outpost.store, identity: outpost.identity, relay: outpost.relay, liveActivityLifetime: 0,
                                       metrics: metrics)
        let pass = DeliveryPass(store: outpost.store, client: outpost.client, metrics: metrics)
        var content = PairingAndDeliveryTests.content
        let received = Int64(Date().timeIntervalSince1970) - 7
        content.receivedAt = UInt64(received)
        let historyID = try #require(try await notifier.notify(content))
        let sent = try #require(try await outpost.deliverAll(historyID, using: pass).first)
        #expect(sent.status == .sent)
        #expect(sent.awaitingReceipt, "a sent notification is followed for its receipt")
        let before = try #require(try await outpost.store.history(days: 1).first?.devices.first)
        #expect(before.status == "sent" && before.displayedAt == nil && before.acceptedAt != nil && before.sentAt != nil, "\(before)")

        try await Self.receipt(stack, device, pairingID: paired.pairingID, eventID: sent.eventID)
        _ = try await outpost.store.database.execute("UPDATE deliveries SET next_attempt_at = 0")
        try await pass.run()
        let entry = try #require(try await outpost.store.history(days: 1).first)
        let shown = try #require(entry.devices.first)
        #expect(shown.status == "displayed", "\(shown)")
        #expect(!shown.awaitingReceipt, "displayed ends the following")
        let displayedAt = try #require(shown.displayedAt)
        #expect(displayedAt >= (shown.sentAt ?? .max) && displayedAt <= Int64(Date().timeIntervalSince1970))
        #expect(entry.mailReceivedAt == received, "INTERNALDATE (here the content's received time) is kept")
        let line = HistoryChain.describe(entry, shown, time: { String($0) })
        #expect(line.hasPrefix("mail received \(received) → noticed +") && line.contains("→ relay accepted +")
            && line.contains("→ APNs sent +")
                && line.contains("→ displayed +"), "\(line)")
        let summary = try await outpost.store.receiptSummary(since: 0)
        #expect(summary.sent == 1 && summary.displayed == 1 && summary.awaiting == 0 && summary.medianSentToDisplayed != nil, "\(summary)")
        let text = metrics.registry.render()
        for hop in ["received_to_noticed", "noticed_to_accepted", "accepted_to_sent", "sent_to_displayed", "noticed_to_displayed"] {
            #expect(text.contains(#"mailwake_outpost_hop_seconds_count{hop="\#(hop)"} 1"#), "\(hop) in \(text)")
        }
        #expect(text.contains(#"mailwake_outpost_deliveries_total{outcome="displayed"} 1"#))
        // Nothing more to ask.
        #expect(try await outpost.store.database.queryValue("SELECT count(*) FROM deliveries WHERE awaiting_receipt = 1",
                                                            as: Int.self) == 0)
    }

    @Test func aSentDeliveryWithoutAReceiptIsAskedAtWideningGapsAndLetGoAtItsDeadline() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        _ = try await outpost.pair(device, through: stack)
        let historyID = try #require(try await outpost.notifier.notify(PairingAndDeliveryTests.content))
        let sent = try #require(try await outpost.deliverAll(historyID).first)
        #expect(sent.awaitingReceipt)
        let next = { try await outpost.store.database.queryValue("SELECT next_attempt_at - updated_at FROM deliveries",
                                                                 as: Int64.self) ?? -1 }
        #expect((9...10).contains(try await next()), "the first receipt check 10 s after sent")
        #expect(DeliveryPass.receiptCheckGap(sinceSent: 5) == 10 && DeliveryPass.receiptCheckGap(sinceSent: 30) == 60
                && DeliveryPass.receiptCheckGap(sinceSent: 100) == 300 && DeliveryPass.receiptCheckGap(sinceSent: 1000) == 1800
                && DeliveryPass.receiptCheckGap(sinceSent: 90_000) == 3600)
        _ = try await outpost.store.database.execute("UPDATE deliveries SET next_attempt_at = 0")
        let late = DeliveryPass(store: outpost.store, client: outpost.client, clock: { sent.expiresAt + DeliveryPass.statusGrace })
        try await late.run()
        let ended = try #require(try await outpost.store.deliveries(historyID: historyID).first)
        #expect(ended.status == .sent && !ended.awaitingReceipt, "past its deadline it stays sent and is asked no more")
        #expect(try await outpost.store.history(days: 1).first?.devices.first?.status == "sent")
    }
}
