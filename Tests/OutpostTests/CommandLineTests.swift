import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MailwakeCrypto
import MailwakeProtocol
import OutpostService
import StackSupport
import TestSupport
import Testing

@Suite("Outpost: the mailwake-outpost command line", .serialized, .awaitedCleanup)
struct OutpostCommandLineTests {
    static var executable: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("mailwake-outpost").path
    }

    static func run(_ arguments: [String]) async throws -> String {
        try await runOffPool { try ChildProcess.run(Self.executable, arguments, directory: nil) }
    }

    /// `mailwake-outpost init` in `dir`, then `relay set` to `stack`'s relay (sandbox); returns what init printed.
    @discardableResult
    static func initOutpost(at dir: String, relayOf stack: RelayStack) async throws -> String {
        let initialized = try await run(["init", "--data-dir", dir])
        _ = try await run(["relay", "set", "--data-dir", dir, "--url", stack.relay.url, "--origin", RelayInstance.origin, "--env",
                           "sandbox"])
        return initialized
    }

    @Test func initRelayPairNotifyAndTheDeviceOpensIt() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-outpost-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let initialized = try await Self.initOutpost(at: dir, relayOf: stack)
        #expect(initialized.contains("fingerprint:"))

        let png = dir + "/pair.png"
        let pairing = try TestServerProcess(executable: Self.executable, arguments: ["pair", "--data-dir", dir, "--png", png],
                                            logName: "outpost-pair",
                                            pipeStdout: true)
        var transcript: [String] = []
        var link: PairingLink?
        while link == nil {
            guard let line = await Blocking.run({ pairing.readStdoutLine() }) else { break }
            transcript.append(line)
            if line.hasPrefix("mailwake://pair?") { link = try PairingLink.parse(line) }
        }
        let scanned = try #require(link, "no link in: \(transcript.joined(separator: "\n")) \(pairing.logText())")
        #expect(transcript.contains { $0.contains("outpost fingerprint:") })
        #expect(transcript.contains { $0.contains("▄") || $0.contains("▀") }, "a QR code was drawn")
        #expect(FileManager.default.fileExists(atPath: png))
        #expect(try await stack.send(.post, "/v1/pairings/\(scanned.pairingID)/consent",
                                     body: try device.consent(to: scanned).jsonBytes).status == .accepted)
        while true {
            guard let line = await Blocking.run({ pairing.readStdoutLine() }) else { break }
            transcript.append(line)
            if line.hasPrefix("  pairing id:") { break }
        }
        pairing.stop()
        #expect(transcript.contains("Paired with device \(device.id)"), "\(transcript.joined(separator: "\n"))")
        if let out = ProcessInfo.processInfo.environment["MAILWAKE_TRANSCRIPT_DIR"] {
            try? transcript.joined(separator: "\n").write(toFile: out + "/outpost-pair.txt", atomically: true, encoding: .utf8)
        }

        let listed = try await Self.run(["devices", "list", "--data-dir", dir])
        #expect(listed.contains(device.id) && listed.contains("active"))
        let started = ContinuousClock.now
        let notified = try await Self.run(["notify", "--test", "--data-dir", dir])
        #expect(notified.contains("sent"), "\(notified)")
        let delivery = try #require(try await stack.simulator.waitForDeliveries(count: 1, timeout: 10).first)
        let elapsed = ContinuousClock.now - started
        let opened = try device.open(payload: delivery.payload, outpostKey: try P256PublicKeyOf(link: scanned),
                                     pairingID: scanned.pairingID)
        #expect(opened.subject == "Test notification from your outpost")
        print("notify --test to the device opening it: \(elapsed)")

        let history = try await Self.run(["history", "--data-dir", dir])
        #expect(history.contains("Test notification from your outpost") && history.contains("sent"))
        let unpaired = try await Self.run(["devices", "unpair", scanned.pairingID, "--data-dir", dir])
        #expect(unpaired.contains("Unpaired 1"))
        await #expect(throws: (any Error).self) { _ = try await Self.run(["notify", "--test", "--data-dir", dir]) }
    }

    @Test func serveDeliversWhatIsWaitingAndStopsOnSIGTERM() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let paired = try await outpost.pair(device, through: stack)
        // Stored, not yet sent: what a crash or a relay outage leaves behind.
        let historyID = try #require(try await outpost.notifier.notify(PairingAndDeliveryTests.content))
        // No listeners: their default ports may be taken by an outpost already running on this machine.
        let config = outpost.directory.path + "/test.env"
        try "MAILWAKE_OUTPOST_LISTEN=\nMAILWAKE_OUTPOST_ADMIN_LISTEN=\n".write(toFile: config, atomically: true, encoding: .utf8)
        let serving = try TestServerProcess(executable: Self.executable,
                                            arguments: ["serve", "--data-dir", outpost.directory.path, "--config", config],
                                            logName: "outpost-serve")
        let delivery = try #require(try await stack.simulator.waitForDeliveries(count: 1, timeout: 15).first)
        #expect(try device.open(payload: delivery.payload, outpostKey: outpost.identity.signingKey.publicKey, pairingID: paired.pairingID)
                == PairingAndDeliveryTests.content)
        let deadline = ContinuousClock.now + .seconds(15)
        while try await outpost.store.deliveries(historyID: historyID).first?.status != .sent, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try await outpost.store.deliveries(historyID: historyID).first?.status == .sent)
        kill(serving.pid, SIGTERM)
        let deadlineExit = ContinuousClock.now + .seconds(10)
        while serving.isRunning, ContinuousClock.now < deadlineExit { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!serving.isRunning, "serve stops on SIGTERM")
        #expect(serving.logText().contains("outpost starting"))
        serving.stop()
    }

    @Test func aWrongSecretKeyStopsEveryCommandWithOneLine() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-outpost-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Self.run(["init", "--data-dir", dir])
        try FileManager.default.removeItem(atPath: dir + "/secret.key")
        _ = try SecretKey.create(at: dir + "/secret.key")
        do {
            _ = try await Self.run(["status", "--data-dir", dir])
            Issue.record("status ran with a foreign secret.key")
        } catch {
            let text = "\(error)"
            #expect(text.contains("does not open with this secret.key"), "\(text)")
            #expect(!text.contains("Fatal error") && !text.contains("Backtrace"))
        }
    }
}

/// The outpost key a pairing link carries.
func P256PublicKeyOf(link: PairingLink) throws -> MailwakeCrypto.P256.Signing.PublicKey {
    try MailwakeCrypto.P256.Signing.PublicKey(x963Representation: link.outpostKey)
}
