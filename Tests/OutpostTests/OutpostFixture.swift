import Foundation
import MailwakeProtocol
import OutpostService
import StackSupport
import TestSupport

/// An initialized outpost in a scratch data directory, pointed at a relay stack.
struct OutpostFixture: Sendable {
    let directory: DataDirectory
    let store: OutpostStore
    let identity: OutpostIdentity
    let relay: RelaySettingsRecord
    let client: OutpostRelayClient

    static func start(relayURL: String) async throws -> OutpostFixture {
        let directory = DataDirectory(path: FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-outpost" +
            "-\(UUID().uuidString)").path)
        let (store, identity) = try await OutpostStore.initialize(directory)
        let relay = RelaySettingsRecord(url: relayURL, origin: RelayInstance.origin, environment: .sandbox)
        try await store.setRelay(relay)
        let fixture = OutpostFixture(directory: directory, store: store, identity: identity, relay: relay,
                                     client: try OutpostRelayClient(relay: relay, identity: identity))
        AwaitedCleanup.register { await fixture.stop() }
        return fixture
    }

    var pairing: OutpostPairing { OutpostPairing(store: store, client: client, identity: identity) }
    /// Live Activities off: these tests count notification envelopes (LiveActivityTests covers them).
    var notifier: OutpostNotifier { OutpostNotifier(store: store, identity: identity, relay: relay, liveActivityLifetime: 0) }
    var pass: DeliveryPass { DeliveryPass(store: store, client: client) }

    /// The owner at `pair` who compares the fingerprint and confirms.
    static let confirmingOwner = ConsentApproval.owner { _ in true }

    /// Pairs `device` the way a person does: the outpost offers, the App scans the link and consents, the owner confirms.
    func pair(_ device: SimulatedDevice, through stack: RelayStack) async throws -> PairedDevice {
        let offer = try await pairing.offer()
        let scanned = try PairingLink.parse(offer.link.link)
        let completing = Task { try await pairing.complete(offer, approval: Self.confirmingOwner) }
        let consent = try await stack.send(.post, "/v1/pairings/\(scanned.pairingID)/consent",
                                           body: try device.consent(to: scanned).jsonBytes)
        guard consent.status == .accepted else { throw TestHarnessError("consent answered \(consent.status.code): \(consent.text)") }
        return try await completing.value
    }

    /// Runs delivery rounds until every delivery of `historyID` is final.
    func deliverAll(_ historyID: Int64, using pass: DeliveryPass? = nil, timeout: Double = 60) async throws -> [DeliveryRecord] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            try await (pass ?? self.pass).run()
            let records = try await store.deliveries(historyID: historyID)
            if records.allSatisfy({ [.sent, .failed, .expired].contains($0.status) }) { return records }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("deliveries still \(records.map(\.status)) after " +
                                                                               "\(timeout) s") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    func stop() async {
        client.shutdown()
        await store.close()
        try? FileManager.default.removeItem(atPath: directory.path)
    }
}
