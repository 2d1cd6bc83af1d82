import Foundation
import TestSupport
import Testing

/// Channel requests go straight to the channel's host: proxy variables in
/// the outpost's environment (a proxy would see every notification, and the
/// address check would see the proxy instead of the target) are ignored.
@Suite("Outpost: channels ignore proxies from the environment", .serialized, .awaitedCleanup)
struct ChannelProxyTests {
    @Test func aProxyVariableIsNotUsedByChannelRequests() async throws {
        let receiver = try RecordingReceiver.start()
        let proxy = try PendingConnectionListener()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-outpost-proxy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await OutpostCommandLineTests.run(["init", "--data-dir", dir])
        let (added, addOut) = try await MailboxCommandLineTests.run(["channel", "add", "webhook", "--data-dir", dir, "--name", "hook",
                                                                     "--url", receiver.url + "/hook", "--allow-private"])
        #expect(added == 0, "\(addOut)")

        let url = "http://127.0.0.1:\(proxy.port)"
        let exports = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                       "ALL_PROXY"].map { "export \($0)=\(url);" }.joined(separator: " ")
        let (status, out) = try await runOffPool {
            let output = NSTemporaryDirectory() + "/mailwake-cli-\(UUID().uuidString).log"
            defer { unlink(output) }
            let child = try ChildProcess.spawn("/bin/sh",
                                               ["-c", "\(exports) unset no_proxy NO_PROXY; exec \"$0\" \"$@\"",
                                                OutpostCommandLineTests.executable,
                                                           "channel", "test", "--data-dir", dir, "hook"], directory: nil,
                                                           outputPath: output)
            let status = child.waitForExit()
            return (status, ChildProcess.readTextFile(output) ?? "")
        }
        #expect(status == 0 && out.contains("sent"), "\(out)")
        #expect(receiver.received.map(\.path) == ["/hook"])
        #expect(proxy.takeConnections() == 0, "the proxy from the environment was contacted")
    }
}
