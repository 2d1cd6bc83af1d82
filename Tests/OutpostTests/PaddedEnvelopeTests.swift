import Foundation
import MailwakeCrypto
import MailwakeProtocol
import OutpostService
import RelayService
import StackSupport
import TestSupport
import Testing

@Suite("Outpost: every plaintext it seals is padded to 512, 1024 or 2048 bytes", .serialized, .awaitedCleanup)
struct PaddedEnvelopeTests {
    /// Every envelope the outpost stored (notifications and Live Activity starts), opened as the device would.
    func openedEnvelopes(_ outpost: OutpostFixture, _ device: SimulatedDevice,
                         _ paired: PairedDevice) async throws -> [(kind: String, ct: Int, plaintext: [UInt8])] {
        let rows = try await outpost.store.database.query("SELECT envelope, kind FROM deliveries ORDER BY created_at, kind")
        let opener = EnvelopeOpener(agreementKey: device.agreement, outpostKey: outpost.identity.signingKey.publicKey,
                                    audience: RelayInstance.origin, pairingID: paired.pairingID)
        return try rows.map { row in
            let envelope = try Envelope.decode(try row.get("envelope", as: [UInt8].self))
            return (try row.get("kind", as: String.self), envelope.ciphertext.count, try opener.open(envelope))
        }
    }

    @Test func subjectsOfOneAndTwoHundredCharactersGiveTheSameCiphertextLength() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let paired = try await outpost.pair(device, through: stack)
        let notifier = OutpostNotifier(store: outpost.store, identity: outpost.identity, relay: outpost.relay, liveActivityLifetime: 600)
        var contents: [NotificationContent] = []
        for subject in ["x", String(repeating: "Quarterly report ", count: 12).prefix(200).description,
                        String(repeating: "long ", count: 1000)] {
            var content = PairingAndDeliveryTests.content
            content.subject = subject
            contents.append(content)
            _ = try #require(try await notifier.notify(content))
        }
        #expect(contents[1].subject.count == 200)
        let opened = try await openedEnvelopes(outpost, device, paired)
        let notifications = opened.filter { $0.kind == "notification" }
        #expect(notifications.count == 3)
        #expect(opened.contains { $0.kind == "live-activity-start" }, "the content has a code: Live Activity starts are padded too")
        for e in opened {
            #expect(NotificationContent.paddingBuckets.contains(e.plaintext.count), "\(e.kind): \(e.plaintext.count) bytes")
            #expect(e.ct == e.plaintext.count + 16)
            _ = try NotificationContent.decode(e.plaintext)
        }
        #expect(notifications[0].ct == notifications[1].ct, "1 and 200 characters: the same ciphertext length")
        #expect(notifications[0].plaintext.count == 512)
        #expect(notifications[2].plaintext.count == 2048, "a subject that does not fit is shortened into the largest bucket")
        #expect(try NotificationContent.decode(notifications[1].plaintext) == contents[1])
        #expect(try NotificationContent.decode(notifications[2].plaintext).subject.hasSuffix("…"))

        // A padded envelope goes through the relay and APNs and the device opens it (the others are set aside).
        _ = try await outpost.store.database.execute("UPDATE deliveries SET status = 'failed'")
        let historyID = try #require(try await outpost.notifier.notify(contents[0]))
        #expect(try await outpost.deliverAll(historyID).map(\.status) == [.sent])
        let pushes = try await stack.simulator.waitForDeliveries(count: 1, timeout: 10)
        #expect(pushes.count == 1)
        let payload = try #require(pushes.first?.payload)
        #expect(try device.open(payload: payload, outpostKey: outpost.identity.signingKey.publicKey,
                                pairingID: paired.pairingID) == contents[0])
    }
}
