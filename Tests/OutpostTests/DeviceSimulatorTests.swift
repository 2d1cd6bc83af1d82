import Foundation
import MailwakeProtocol
import StackSupport
import TestSupport
import Testing

@Suite("Tools: mailwake-device plays an iPhone against the real services", .serialized, .awaitedCleanup)
struct DeviceSimulatorTests {
    static func binary(_ name: String) -> String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name).path
    }

    static func run(_ name: String, _ arguments: [String]) async throws -> String {
        try await runOffPool { try ChildProcess.run(Self.binary(name), arguments, directory: nil) }
    }

    @Test func registerPairReceiveAndOpenThenUnpair() async throws {
        let stack = try await RelayStack.start()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-device-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (deviceDir, outpostDir) = (root + "/device", root + "/outpost")
        let created = try await Self.run("mailwake-device", ["init", "--dir", deviceDir])
        #expect(created.contains("device id:"))
        #expect((try FileManager.default.attributesOfItem(atPath: deviceDir + "/device.json")[.posixPermissions] as? Int) == 0o600)
        _ = try await Self.run("mailwake-device",
                               ["register", "--dir", deviceDir, "--accounts", stack.accounts.url, "--origin", AccountsInstance.origin])

        try await OutpostCommandLineTests.initOutpost(at: outpostDir, relayOf: stack)
        let pairing = try TestServerProcess(executable: Self.binary("mailwake-outpost"),
                                            arguments: ["pair", "--data-dir", outpostDir, "--no-qr"],
                                            logName: "outpost-pair", pipeStdout: true)
        var link = ""
        var fingerprint = ""
        while link.isEmpty {
            guard let line = await Blocking.run({ pairing.readStdoutLine() }) else { break }
            if line.contains("outpost fingerprint:") { fingerprint = String(line.split(separator: ":",
                                                                                       maxSplits: 1)[1])
                                                                                           .trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("mailwake://pair?") { link = line }
        }
        try #require(!link.isEmpty, "no link: \(pairing.logText())")
        let consented = try await Self.run("mailwake-device", ["pair", link, "--dir", deviceDir, "--relay-url", stack.relay.url])
        #expect(consented.contains("outpost fingerprint: \(fingerprint)"), "the device shows the fingerprint the outpost printed")
        let deviceFingerprint = try #require(consented.split(separator: "\n").first { $0.hasPrefix("device fingerprint:") }?
            .split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces))
        var shownByOutpost = ""
        while true {
            guard let line = await Blocking.run({ pairing.readStdoutLine() }) else { break }
            if line.contains("device fingerprint:") { shownByOutpost = String(line.split(separator: ":",
                                                                                         maxSplits: 1)[1])
                                                                                             .trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("Paired with device") { break }
        }
        #expect(shownByOutpost == deviceFingerprint, "the outpost showed the device's fingerprint before it confirmed")
        pairing.stop()

        _ = try await Self.run("mailwake-outpost", ["notify", "--test", "--data-dir", outpostDir])
        let inbox = try await Self.run("mailwake-device",
                                       ["inbox", "--dir", deviceDir, "--apns", stack.simulator.url, "--ca-file", stack.simulator.caFile,
                                        "--wait", "10"])
        let lines = inbox.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("Test notification from your outpost") == true)
        let again = try await Self.run("mailwake-device",
                                       ["inbox", "--dir", deviceDir, "--apns", stack.simulator.url, "--ca-file", stack.simulator.caFile])
        #expect(!again.contains("{"), "an event is shown once")

        let pairingID = try PairingLink.parse(link).pairingID
        _ = try await Self.run("mailwake-device", ["unpair", pairingID, "--dir", deviceDir, "--relay-url", stack.relay.url])
        await #expect(throws: (any Error).self) { _ = try await Self.run("mailwake-outpost",
                                                                         ["notify", "--test", "--data-dir", outpostDir]) }
        let devices = try await Self.run("mailwake-outpost", ["devices", "list", "--data-dir", outpostDir])
        #expect(devices.contains("unpaired"), "the outpost learnt from the relay that the device ended the pairing: \(devices)")
    }

    @Test func aSecondDeviceScanningAUsedCodeIsToldItWasUsedByAnotherDevice() async throws {
        let stack = try await RelayStack.start()
        let outpost = try SimulatedOutpost()
        let first = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        #expect(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity).status == .created)
        #expect(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                     body: try first.consent(to: link).jsonBytes).status == .accepted)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-device-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try await Self.run("mailwake-device", ["init", "--dir", root])
        _ = try await Self.run("mailwake-device",
                               ["register", "--dir", root, "--accounts", stack.accounts.url, "--origin", AccountsInstance.origin])
        do {
            _ = try await Self.run("mailwake-device", ["pair", link.link, "--dir", root, "--relay-url", stack.relay.url])
            Issue.record("a second consent for one pairing was accepted")
        } catch {
            #expect("\(error)".contains("this pairing code was already used by another device"), "\(error)")
        }
    }

    @Test func aRevision1PairingCodeIsRefusedNamingTheUpgrade() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-device-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try await Self.run("mailwake-device", ["init", "--dir", root])
        let (_, link) = try SimulatedOutpost().pairingOffer()
        do {
            _ = try await Self.run("mailwake-device",
                                   ["pair", link.link.replacingOccurrences(of: "pair?v=2&", with: "pair?v=1&"), "--dir", root])
            Issue.record("a revision 1 link was accepted")
        } catch {
            #expect("\(error)".contains("upgrade the outpost"), "\(error)")
        }
    }

    @Test func aPurchaseEntitlesTheDevice() async throws {
        let signer = try await Blocking.run { try StoreKitSigner.make() }
        let stack = try await RelayStack.start(trialDays: 0, appStore: signer.configuration)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-device-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let created = try await Self.run("mailwake-device", ["init", "--dir", dir])
        let deviceID =
            try #require(created.split(separator: "\n").first { $0.hasPrefix("device id:") }?.split(separator: " ").last.map(String.init))
        let account = ["--dir", dir, "--accounts", stack.accounts.url, "--origin", AccountsInstance.origin]
        _ = try await Self.run("mailwake-device", ["register"] + account)
        let entitledBefore = try await entitled(stack, deviceID)
        #expect(entitledBefore == false)
        let jws = try signer.transaction(original: "4000000001", expires: Date().addingTimeInterval(30 * 86400))
        _ = try await Self.run("mailwake-device", ["purchase", "--transaction", jws] + account)
        #expect(try await entitled(stack, deviceID) == true)
        await #expect(throws: (any Error).self) {
            _ = try await Self.run("mailwake-device",
                                   ["purchase", "--transaction",
                                    try await Blocking.run { try StoreKitSigner.make() }.transaction(original: "4000000002",
                                        expires: Date().addingTimeInterval(86400))] + account)
        }
    }

    func entitled(_ stack: RelayStack, _ deviceID: String) async throws -> Bool? {
        let r = try await stack.client.execute(.init(url: stack.accounts.url + "/internal/v1/devices/\(deviceID)/authorization",
                                                     headers: ["Authorization": "Bearer \(AccountsInstance.serviceToken)"]))
        return r.status == .ok ? try r.decode(DeviceAuthorization.self).entitled : nil
    }
}
