import Foundation
import TestSupport

/// `mailwake-outpost` running in a terminal-like session: its output is read
/// while it runs (the code and URL it prints), its exit awaited.
final class TerminalSession: Sendable {
    private let child: ChildProcess
    private let outputPath: String

    /// Starts the outpost binary with `environment` added to this process's.
    init(_ arguments: [String], environment: [String: String]) throws {
        outputPath = NSTemporaryDirectory() + "/mailwake-terminal-\(UUID().uuidString).log"
        child = try ChildProcess.spawn("/usr/bin/env", environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                                       + [OutpostCommandLineTests.executable] + arguments, directory: nil, outputPath: outputPath)
    }

    deinit { unlink(outputPath) }

    /// Everything printed so far.
    var output: String { ChildProcess.readTextFile(outputPath) ?? "" }

    /// Waits until a printed line satisfies `match` and returns it.
    func line(timeout: Double = 20, where match: @Sendable (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if let line = output.split(separator: "\n").map(String.init).first(where: match) { return line }
            guard ContinuousClock.now < deadline, child.isRunning || output.split(separator: "\n").contains(where: { match(String($0)) }) else {
                throw TestHarnessError("the outpost never printed the line looked for: \(output.suffix(3000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits for the exit; returns the status and the whole output.
    func finish() async -> (Int32, String) {
        let status = await child.exitStatus()
        return (status, output)
    }
}
