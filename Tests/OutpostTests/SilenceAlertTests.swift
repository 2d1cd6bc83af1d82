import Foundation
import MailwakeProtocol
import StackSupport
import TestSupport
import Testing

@Suite("Outpost heartbeats: a killed outpost alerts its device once, and once when it is back (PROTOCOL §14)", .serialized,
       .awaitedCleanup)
struct SilenceAlertTests {
    static let silence: Int64 = 3

    /// Waits until `mailwake-device inbox` prints a line starting `prefix`; returns every line it printed meanwhile.
    static func waitForInboxLine(_ prefix: String, deviceDir: String, stack: RelayStack, timeout: Int) async throws -> [String] {
        var lines: [String] = []
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            let out = try await DeviceSimulatorTests.run("mailwake-device", ["inbox", "--dir", deviceDir, "--apns", stack.simulator.url,
                                                                             "--ca-file", stack.simulator.caFile, "--wait", "5"])
            lines += out.split(separator: "\n").map(String.init)
            if lines.contains(where: { $0.hasPrefix(prefix) }) { return lines }
        }
        throw TestHarnessError("no \(prefix) line within \(timeout) s; printed: \(lines)")
    }

    /// Counts the simulator's deliveries whose `mw_sys.type` is `type`.
    static func alerts(_ stack: RelayStack, _ type: String) async throws -> Int {
        try await stack.simulator.deliveries().filter {
            let payload = (try? JSONSerialization.jsonObject(with: Data($0.payload.utf8))) as? [String: Any]
            return (payload?["mw_sys"] as? [String: Any])?["type"] as? String == type
        }.count
    }

    @Test func sigkillTheOutpostThenRestartIt() async throws {
        let stack = try await RelayStack.start { $0.outpostSilence = Self.silence }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-silence-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (deviceDir, outpostDir) = (root + "/device", root + "/outpost")
        _ = try await DeviceSimulatorTests.run("mailwake-device", ["init", "--dir", deviceDir])
        _ = try await DeviceSimulatorTests.run("mailwake-device",
                                               ["register", "--dir", deviceDir, "--accounts", stack.accounts.url, "--origin",
                                                AccountsInstance.origin])
        try await OutpostCommandLineTests.initOutpost(at: outpostDir, relayOf: stack)
        let pairing = try TestServerProcess(executable: DeviceSimulatorTests.binary("mailwake-outpost"),
                                            arguments: ["pair", "--data-dir", outpostDir, "--no-qr"],
                                            logName: "outpost-pair", pipeStdout: true)
        var link = ""
        while link.isEmpty {
            guard let line = await Blocking.run({ pairing.readStdoutLine() }) else { break }
            if line.hasPrefix("mailwake://pair?") { link = line }
        }
        try #require(!link.isEmpty, "no link: \(pairing.logText())")
        _ = try await DeviceSimulatorTests.run("mailwake-device", ["pair", link, "--dir", deviceDir, "--relay-url", stack.relay.url])
        while true {
            guard let line = await Blocking.run({ pairing.readStdoutLine() }) else { break }
            if line.hasPrefix("Paired with device") { break }
        }
        pairing.stop()

        let config = root + "/serve.env"
        try "MAILWAKE_OUTPOST_LISTEN=\nMAILWAKE_OUTPOST_ADMIN_LISTEN=\nMAILWAKE_OUTPOST_HEARTBEAT_INTERVAL=1\n".write(toFile: config,
            atomically: true, encoding: .utf8)
        func serve() throws -> TestServerProcess {
            try TestServerProcess(executable: DeviceSimulatorTests.binary("mailwake-outpost"),
                                  arguments: ["serve", "--data-dir", outpostDir, "--config", config],
                                  logName: "outpost-serve")
        }
        var serving = try serve()
        // The first heartbeat arrived.
        let beatDeadline = ContinuousClock.now + .seconds(20)
        while try await stack.relay.app.database.query("SELECT 1 FROM outpost_heartbeats WHERE state = 'alive'").isEmpty {
            guard ContinuousClock.now < beatDeadline else { throw TestHarnessError("no heartbeat: \(serving.logText())") }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(serving.pid, SIGKILL)
        let killed = ContinuousClock.now
        let silentLines = try await Self.waitForInboxLine("notice: outpost-silent", deviceDir: deviceDir, stack: stack,
                                                          timeout: Int(Self.silence) + 60)
        #expect(ContinuousClock.now - killed < .seconds(Self.silence + 60))
        #expect(!silentLines.contains { $0.hasPrefix("{") }, "a service notice is never shown as mail")
        serving.stop()

        serving = try serve()
        let backLines = try await Self.waitForInboxLine("notice: outpost-back", deviceDir: deviceDir, stack: stack, timeout: 30)
        #expect(!backLines.contains { $0.hasPrefix("{") })
        #expect(!backLines.contains { $0.hasPrefix("notice: outpost-silent") }, "outpost-silent is shown once")
        #expect(try await Self.alerts(stack, "outpost-silent") == 1)
        #expect(try await Self.alerts(stack, "outpost-back") == 1)
        serving.stop()
    }
}
