import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// `mailwake-accounts serve` started before its PostgreSQL: it waits, then migrates and serves.
@Suite("Accounts: start before the database")
struct StartupTests {
    /// The built `mailwake-accounts`, next to the running test binary.
    static var executable: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("""
            mailwake-a\
            ccounts
            """).path
    }

    @Test func serveWaitsForADatabaseThatIsNotUpYetThenMigratesAndAnswersReady() async throws {
        let server = try await PostgresTestServer.start()
        defer { server.stop() }
        await server.kill()
        let port = try PortAllocator.freePort()
        let adminPort = try PortAllocator.freePort()
        let settings = [
            "PUBLIC_ORIGIN": "https://accounts.test", "DATABASE_URL": server.url, "LISTEN": "127.0.0.1:\(port)",
            "ADMIN_LISTEN": "127.0.0.1:\(adminPort)", "ALLOW_PLAIN_HTTP": "true", "LOG_LEVEL": "info",
        ]
        let configFile = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-accounts-\(UUID().uuidString).env").path
        let text = settings.keys.sorted().map { "MAILWAKE_ACCOUNTS_\($0)=\(settings[$0]!)" }.joined(separator: "\n") + "\n"
        #expect(FileManager.default.createFile(atPath: configFile, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
        defer { try? FileManager.default.removeItem(atPath: configFile) }

        let process = try TestServerProcess(executable: Self.executable, arguments: ["serve", "--config", configFile],
                                            logName: "accounts-startup")
        defer { process.stop() }
        // The first attempts fail and are logged while the process keeps running.
        let deadline = ContinuousClock.now + .seconds(60)
        while process.logText().components(separatedBy: "database not reachable yet").count < 3 {
            guard process.isRunning, ContinuousClock.now < deadline else {
                Issue.record("no retries logged: \(process.logText().suffix(2000))")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(process.isRunning)
        try await server.restart()
        let listening = await Blocking.run { process.waitForListener(port: adminPort, timeout: 60) }
        #expect(listening, "\(process.logText().suffix(2000))")

        var c = HTTPClient.Configuration()
        c.httpVersion = .http1_1
        let client = try HTTPClient(configuration: c)
        defer { client.shutdown() }
        #expect(try await client.execute(.init(method: .get, url: "http://127.0.0.1:\(adminPort)/readyz")).status == 200)
        let log = process.logText()
        #expect(log.contains("migrations applied"))
        #expect(log.contains("database reachable"))
        #expect(!log.contains(server.password))
    }
}
