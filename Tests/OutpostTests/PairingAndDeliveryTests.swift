import Foundation
import MailwakeCrypto
import MailwakeProtocol
import OutpostService
import RelayService
import StackSupport
import TestSupport
import Testing

@Suite("Outpost: pairing through the relay and encrypted delivery", .serialized, .awaitedCleanup)
struct PairingAndDeliveryTests {
    static let content = NotificationContent(mailbox: "personal", folder: "INBOX",
                                             from: .init(name: "Example Bank", address: "no-reply@bank.example"),
                                             subject: "Your sign-in code", receivedAt: 1_764_400_000, code: "482913")

    @Test func initPairNotifyAndTheDeviceOpensIt() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let paired = try await outpost.pair(device, through: stack)
        #expect(paired.deviceID == device.id)
        #expect(paired.fingerprint == KeyIdentity.fingerprint(of: device.signing.publicKey.x963Representation))
        #expect(try await outpost.store.pairings(activeOnly: true).map(\.pairingID) == [paired.pairingID])

        let historyID = try #require(try await outpost.notifier.notify(Self.content))
        let records = try await outpost.deliverAll(historyID)
        #expect(records.map(\.status) == [.sent])
        let delivery = try #require(try await stack.simulator.waitForDeliveries(count: 1, timeout: 10).first)
        #expect(delivery.deviceToken == device.apnsToken)
        let opened = try device.open(payload: delivery.payload, outpostKey: outpost.identity.signingKey.publicKey,
                                     pairingID: paired.pairingID)
        #expect(opened == Self.content)
    }

    @Test func aPairingWithoutConsentExpiresAndStoresNothing() async throws {
        let stack = try await RelayStack.start()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let offer = try await outpost.pairing.offer(lifetime: 2)
        await #expect { _ = try await outpost.pairing.complete(offer, approval: OutpostFixture.confirmingOwner) } throws: {
            ($0 as? OutpostError)?.code == .pairing
        }
        #expect(try await outpost.store.pairings().isEmpty)
    }

    @Test func anEnvelopeIsSealedAfreshForEveryDeviceAndStoredBeforeItIsSent() async throws {
        let stack = try await RelayStack.start()
        let first = try await stack.registeredDevice()
        let second = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        _ = try await outpost.pair(first, through: stack)
        _ = try await outpost.pair(second, through: stack)
        let historyID = try #require(try await outpost.notifier.notify(Self.content))
        let stored = try await outpost.store.deliveries(historyID: historyID)
        #expect(stored.count == 2)
        #expect(stored.allSatisfy { $0.status == .pending })
        let envelopes = try stored.map { try Envelope.decode($0.envelope) }
        #expect(envelopes[0].ephemeralPublicKey != envelopes[1].ephemeralPublicKey)
        #expect(envelopes[0].salt != envelopes[1].salt && envelopes[0].nonce != envelopes[1].nonce)
        #expect(Set(envelopes.map(\.context.eventID)).count == 2)
        #expect(try await outpost.deliverAll(historyID).allSatisfy { $0.status == .sent })
    }

    @Test func whileTheRelayIsDownDeliveriesWaitAndGoOutOnceWhenItReturns() async throws {
        let port = try PortAllocator.freePort()
        let stack = try await RelayStack.start { $0.listen = .init(host: "127.0.0.1", port: port) }
        let device = try await stack.registeredDevice()
        var outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let paired = try await outpost.pair(device, through: stack)
        await stack.relay.stop()

        let historyID = try #require(try await outpost.notifier.notify(Self.content))
        try await outpost.pass.run()
        let waiting = try await outpost.store.deliveries(historyID: historyID)
        #expect(waiting.map(\.status) == [.pending])
        #expect(waiting.first?.attempts == 1)
        let storedBytes = waiting.first?.envelope

        // The outpost restarts (a new process would open the same directory) and the relay comes back.
        let directory = outpost.directory
        outpost.client.shutdown()
        await outpost.store.close()
        let reopened = try await OutpostStore.open(directory)
        let identity = try await reopened.identity()
        let client = try OutpostRelayClient(relay: try await reopened.relay(), identity: identity)
        outpost = OutpostFixture(directory: directory, store: reopened, identity: identity, relay: try await reopened.relay(),
                                 client: client)
        AwaitedCleanup.register { client.shutdown(); await reopened.close() }
        var again = RelayInstance.configuration(databaseURL: stack.relayDatabaseURL, accounts: stack.accounts, simulator: stack.simulator)
        again.listen = .init(host: "127.0.0.1", port: port)
        let relay = try await RelayInstance.start(again)
        AwaitedCleanup.register { await relay.stop() }
        _ = try await reopened.database.execute("UPDATE deliveries SET next_attempt_at = 0")
        let records = try await outpost.deliverAll(historyID)
        #expect(records.map(\.status) == [.sent])
        #expect(records.first?.envelope == storedBytes, "the retry sent the stored bytes, not a new encryption")
        try await Task.sleep(for: .milliseconds(300))
        let pushes = try await stack.simulator.deliveries(since: 0).filter { $0.status == 200 }
        #expect(pushes.count == 1)
        #expect(try device.open(payload: pushes[0].payload, outpostKey: identity.signingKey.publicKey,
                                pairingID: paired.pairingID) == Self.content)
    }

    @Test func unpairingStopsDeliveryAndKeepsTheRecord() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let paired = try await outpost.pair(device, through: stack)
        try await outpost.pairing.unpair(paired.pairingID)
        let all = try await outpost.store.pairings()
        #expect(all.count == 1 && all.first?.active == false && all.first?.unpairedAt != nil)
        #expect(try await outpost.notifier.notify(Self.content) == nil)
        // The relay refuses the pairing too: an old envelope replayed by anyone is not delivered.
        let stale = try EnvelopeSealer(identity: outpost.identity.signingKey).seal(
            Self.content.jsonBytes, to: device.agreement.publicKey,
            context: EncryptionContext(aud: RelayInstance.origin, pairingID: paired.pairingID, eventID: try EventID.generate(),
                                       kind: .notification,
                                       iat: UInt64(Date().timeIntervalSince1970)))
        #expect(try await stack.submit(stale).status == .gone)
    }

    @Test func aTamperedDeliveryRowIsRefusedByTheRelayAndNeverReachesTheDevice() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        _ = try await outpost.pair(device, through: stack)
        let historyID = try #require(try await outpost.notifier.notify(Self.content))
        let stored = try #require(try await outpost.store.deliveries(historyID: historyID).first)
        var envelope = try Envelope.decode(stored.envelope)
        envelope.ciphertext[3] ^= 0x10
        _ = try await outpost.store.database.execute("UPDATE deliveries SET envelope = ? WHERE event_id = ?", envelope.jsonBytes,
                                                     stored.eventID)
        let records = try await outpost.deliverAll(historyID)
        #expect(records.first?.status == .failed)
        #expect(records.first?.lastError == "401 bad_signature")
        #expect(try await stack.simulator.deliveries(since: 0).isEmpty)
    }

    @Test func aTamperedIdentityRowStopsTheOutpostWithOneError() async throws {
        let directory = DataDirectory(path: FileManager.default.temporaryDirectory.appendingPathComponent("""
            mailwake-outpost\
            -\(UUID().uuidString)
            """).path)
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        let (store, _) = try await OutpostStore.initialize(directory)
        _ = try await store.database.execute("UPDATE identity SET public_key = ?",
                                             try P256.Signing.PrivateKey().publicKey.x963Representation)
        await store.close()
        await #expect { _ = try await OutpostStore.open(directory) } throws: { ($0 as? OutpostError)?.code == .sealedData }
    }
}
