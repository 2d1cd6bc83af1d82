import Foundation
import MailwakeProtocol
import StackSupport
import TestSupport
import Testing

/// `mailwake-outpost pair` on a terminal (util-linux `script` gives it one):
/// it shows the device's fingerprint and asks; only `y` confirms.
@Suite("Outpost: pair asks on a terminal before it confirms", .serialized, .awaitedCleanup)
struct PairOnATerminalTests {
    /// Runs `pair` on a pseudo-terminal whose input is `answer`, consents as `device`, and returns what it printed and whether it paired.
    static func pairOnATerminal(answering answer: String) async throws -> (transcript: String, paired: Bool, device: SimulatedDevice) {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dir = scratch.file("outpost")
        try await OutpostCommandLineTests.initOutpost(at: dir, relayOf: stack)
        let answerFile = try scratch.write("answer", answer)
        let command = "\(OutpostCommandLineTests.executable) pair --data-dir \(dir) --no-qr"
        let pairing = try TestServerProcess(executable: "/bin/sh",
                                            arguments: ["-c", "exec script -qefc \"$0\" /dev/null < \"$1\"", command, answerFile],
                                            logName: "outpost-pair-tty", pipeStdout: true)
        defer { pairing.stop() }
        var transcript: [String] = []
        while true {
            guard let line = await Blocking.run({ pairing.readStdoutLine() }) else { break }
            transcript.append(line)
            if let link = line.firstRange(of: "mailwake://pair?")
                .map({ String(line[$0.lowerBound...]).trimmingCharacters(in: .whitespacesAndNewlines) }) {
                let scanned = try PairingLink.parse(link)
                #expect(try await stack.send(.post, "/v1/pairings/\(scanned.pairingID)/consent",
                                             body: try device.consent(to: scanned).jsonBytes).status == .accepted)
            }
            if line.contains("Paired with device") || line.contains("was not confirmed") { break }
        }
        let text = transcript.joined(separator: "\n")
        let listed = try await OutpostCommandLineTests.run(["devices", "list", "--data-dir", dir])
        return (text, listed.contains(device.id), device)
    }

    @Test func yesConfirmsTheDeviceItShowed() async throws {
        let (transcript, paired, device) = try await Self.pairOnATerminal(answering: "y\n")
        #expect(transcript.contains("device fingerprint: \(KeyIdentity.fingerprint(of: device.signing.publicKey.x963Representation))"),
                "\(transcript)")
        #expect(transcript.contains("Confirm this device? [y/N]"), "\(transcript)")
        #expect(transcript.contains("Paired with device \(device.id)"), "\(transcript)")
        #expect(paired)
    }

    @Test func anythingButYesDeclinesAndStoresNothing() async throws {
        let (transcript, paired, _) = try await Self.pairOnATerminal(answering: "\n")
        #expect(transcript.contains("Confirm this device? [y/N]"), "\(transcript)")
        #expect(transcript.contains("was not confirmed"), "\(transcript)")
        #expect(!paired)
    }
}
