import Foundation
#if canImport(Glibc)
import Glibc
#endif
public import TestSupport

/// `mailwake-relay serve` as a child process (for kill-and-restart tests and
/// the real command line), configured through a `--config` file.
public final class RelayProcess: Sendable {
    public let process: TestServerProcess
    public let port: UInt16
    public let adminPort: UInt16
    public let configFile: String
    public var url: String { "http://127.0.0.1:\(port)" }
    public var adminURL: String { "http://127.0.0.1:\(adminPort)" }

    /// The built `mailwake-relay`, next to the running test binary.
    public static var executable: String {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return binary.deletingLastPathComponent().appendingPathComponent("mailwake-relay").path
    }

    private init(process: TestServerProcess, port: UInt16, adminPort: UInt16, configFile: String) {
        self.process = process
        self.port = port
        self.adminPort = adminPort
        self.configFile = configFile
    }

    /// Writes the settings for a relay on `databaseURL` next to `accounts` and `simulator`.
    public static func writeConfiguration(databaseURL: String, accounts: AccountsInstance, simulator: APNsSimulatorProcess,
                                          port: UInt16, adminPort: UInt16, extra: [String: String] = [:]) throws -> String {
        var settings: [String: String] = [
            "LISTEN": "127.0.0.1:\(port)", "ADMIN_LISTEN": "127.0.0.1:\(adminPort)", "PUBLIC_ORIGIN": RelayInstance.origin,
            "DATABASE_URL": databaseURL, "ALLOW_PLAIN_HTTP": "true",
            "ACCOUNTS_URL": accounts.url, "ACCOUNTS_TOKEN": AccountsInstance.serviceToken,
            "APNS_KEY_FILE": simulator.keyFile, "APNS_KEY_ID": simulator.keyID, "APNS_TEAM_ID": simulator.teamID,
            "APNS_BUNDLE_ID": RelayInstance.bundleID, "APNS_PRODUCTION_URL": simulator.url, "APNS_SANDBOX_URL": simulator.url,
            "APNS_CA_FILE": simulator.caFile, "OPERATOR_TOKEN": RelayInstance.operatorToken, "RATE_LIMIT": "100000",
            "RATE_BURST": "100000",
            "LEASE": "5", "LOG_LEVEL": "info",
        ]
        for (k, v) in extra { settings[k] = v }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-relay-\(UUID().uuidString).env").path
        let text = settings.keys.sorted().map { "MAILWAKE_RELAY_\($0)=\(settings[$0]!)" }.joined(separator: "\n") + "\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TestHarnessError("cannot write \(path)")
        }
        return path
    }

    /// Starts `mailwake-relay serve --config FILE` and waits for both its listeners (the process stops when either
    /// cannot bind).
    public static func start(configFile: String, port: UInt16, adminPort: UInt16, name: String = "relay") async throws -> RelayProcess {
        let process = try TestServerProcess(executable: executable, arguments: ["serve", "--config", configFile], logName: name)
        let up = await Blocking.run {
            process.waitForListener(port: port, timeout: 30) && process.waitForListener(port: adminPort, timeout: 30)
        }
        guard up else {
            process.stop(keepLog: true)
            throw TestHarnessError("mailwake-relay did not listen on \(port) and \(adminPort): \(process.logText().suffix(3000))")
        }
        let relay = RelayProcess(process: process, port: port, adminPort: adminPort, configFile: configFile)
        AwaitedCleanup.register {
            await relay.stop()
            try? FileManager.default.removeItem(atPath: configFile)
        }
        return relay
    }

    /// SIGKILL: the process gets no chance to finish anything.
    public func kill() async {
        Glibc.kill(process.pid, SIGKILL)
        await Blocking.run { self.process.stop(keepLog: true) }
    }

    /// SIGTERM and reap.
    public func stop() async {
        await Blocking.run { self.process.stop(keepLog: true) }
    }

    public func logText() -> String { process.logText() }
}
