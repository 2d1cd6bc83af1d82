import Foundation
import MailwakeDeviceKit
import MailwakeIMAP
import MailwakeProtocol
import OutpostService
import StackSupport
import TestSupport
import Testing

/// The body-read benchmark, run by `Tools/BodyBench/run` (MAILWAKE_BENCH_BODY=1):
/// the real `mailwake-outpost serve` process reading a 60 KB HTML message from
/// a real Dovecot for a device over HTTPS. Prints one JSON object; asserts
/// nothing about time.
@Suite(.serialized, .awaitedCleanup, .enabled(if: ProcessInfo.processInfo.environment["MAILWAKE_BENCH_BODY"] != nil))
struct BodyReadBenchmark {
    @Test func bodyRequestsPerSecond() async throws {
        let env = ProcessInfo.processInfo.environment
        let seconds = Double(env["MAILWAKE_BENCH_SECONDS"] ?? "5") ?? 5
        let message = Array(try Data(contentsOf: URL(fileURLWithPath: env["MAILWAKE_BENCH_MESSAGE_FILE"] ?? "")))
        let binary = MailWatchBenchmark.binary
        let dovecot = try await DovecotServer.start(users: [("alice", "pw")])
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dir = scratch.file("outpost")
        _ = try await runOffPool { try ChildProcess.run(binary, ["init", "--data-dir", dir], directory: nil) }
        _ = try await runOffPool { try ChildProcess.run(binary,
                                                        ["relay", "set", "--data-dir", dir, "--url", "https://127.0.0.1:9", "--env",
                                                         "sandbox"], directory: nil) }
        let (added,
             addOutput) = try await MailboxCommandLineTests.run(["mailbox", "add", "--data-dir", dir, "--label", "Personal", "--host",
                                                                 "localhost",
                                                                        "--port", String(dovecot.imapsPort), "--ca-file", dovecot.caFile,
                                                                        "--user", "alice",
                                                                        "--password-stdin"], stdin: "pw\n", executable: binary)
        guard added == 0 else { throw TestHarnessError(addOutput) }
        let port = try PortAllocator.freePort()
        let config = try scratch.write("outpost.env",
                                       "MAILWAKE_OUTPOST_LISTEN=127.0.0.1:\(port)\nMAILWAKE_OUTPOST_PUBLIC_URL=https://127.0.0.1" +
                                       ":\(port)\nMAILWAKE_OUTPOST_LOG_LEVEL=warning\nMAILWAKE_OUTPOST_ADMIN_LISTEN=\n")
        let serve = try TestServerProcess(executable: binary, arguments: ["serve", "--data-dir", dir, "--config", config],
                                          logName: "outpost-body-bench")
        defer { serve.stop() }
        guard await Blocking.run({ serve.waitForListener(port: port) }) else { throw TestHarnessError(serve.logText()) }

        // The device redeems an invitation for content.
        let invite = try TestServerProcess(executable: binary,
                                           arguments: ["invite", "--data-dir", dir, "--config", config, "--scope", "content", "--no-qr"],
                                           logName: "outpost-body-bench-invite", pipeStdout: true)
        defer { invite.stop() }
        var link: ManagementLink?
        while link == nil, invite.isRunning {
            guard let line = await Blocking.run({ invite.readStdoutLine() }) else { break }
            if line.hasPrefix("mailwake://manage?") { link = try ManagementLink.parse(line) }
        }
        let scanned = try #require(link)
        let device = try SimulatedDevice()
        let session = try OutpostSession(origin: scanned.url, pin: scanned.pin, signing: device.signing)
        defer { session.shutdown() }
        #expect(try await session.redeem(scanned, agreement: device.agreement.publicKey).status == .ok)

        // The message in Dovecot, and the reference a notification would carry.
        let endpoint = IMAPEndpoint(host: "localhost", port: dovecot.imapsPort, security: .implicitTLS, caFile: dovecot.caFile)
        let (uidValidity, uid) = try await runOffPool { () throws -> (UInt32, UInt32) in
            let client = try IMAPClient(endpoint: endpoint)
            defer { client.logout() }
            try client.authenticate(.password(user: "alice", password: "pw"))
            let uid = try client.append(message, to: "INBOX") ?? 0
            return (try client.examine("INBOX").uidValidity, uid)
        }
        let store = try await OutpostStore.open(DataDirectory(path: dir))
        let identity = try await store.identity()
        let mailboxID = try #require(try await store.mailboxes().first?.id)
        await store.close()
        let ref = try MessageReference(outpostID: identity.id, deviceID: device.id, mailboxID: String(mailboxID), folder: "INBOX",
                                       uidValidity: uidValidity,
                                       uid: uid, iat: UInt64(Date().timeIntervalSince1970)).sign(with: identity.signingKey)
        let first = try await session.body(ref: ref)
        #expect(first.status == .ok, "\(first.text)")

        var runs: [[String: Any]] = []
        for concurrency in [1, 4, 8] {
            let sessions = try (0..<concurrency).map { _ in try OutpostSession(origin: scanned.url, pin: scanned.pin,
                                                                               signing: device.signing) }
            defer { sessions.forEach { $0.shutdown() } }
            let deadline = ContinuousClock.now + .seconds(seconds)
            let started = ContinuousClock.now
            let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
                for s in sessions {
                    group.addTask {
                        var mine: [Double] = []
                        while ContinuousClock.now < deadline {
                            let t = ContinuousClock.now
                            let r = try await s.body(ref: ref)
                            guard r.status == .ok else { throw TestHarnessError("body answered \(r.status.code): \(r.text)") }
                            let d = ContinuousClock.now - t
                            mine.append(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
                        }
                        return mine
                    }
                }
                var all: [Double] = []
                for try await part in group { all += part }
                return all.sorted()
            }
            let elapsed = ContinuousClock.now - started
            let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            func pct(_ p: Double) -> Double { latencies.isEmpty ? 0 : (latencies[min(latencies.count - 1,
                                                                                     Int(Double(latencies.count) * p))] * 10)
                                                                                         .rounded() / 10 }
            runs.append(["concurrency": concurrency, "requests": latencies.count,
                         "requests_per_second": (Double(latencies.count) / elapsedSeconds * 10).rounded() / 10,
                         "p50_ms": pct(0.5), "p99_ms": pct(0.99)])
        }
        let result: [String: Any] = ["message_bytes": message.count, "response_bytes": first.body.count, "runs": runs,
                                     "outpost_binary": binary.contains("/release/") ? "release" : "debug"]
        let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
        if let out = env["MAILWAKE_BENCH_OUT"] { _ = FileManager.default.createFile(atPath: out, contents: data) }
        print(String(decoding: data, as: UTF8.self))
    }
}
