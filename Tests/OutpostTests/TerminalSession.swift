import Foundation
import MailwakeCore
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `mailwake-outpost` running in a terminal-like session: its output is read
/// while it runs (the code and URL it prints), its exit awaited.
final class TerminalSession: Sendable {
    private let child: ChildProcess
    private let outputPath: String
    private let inputPath: String

    /// Starts the outpost binary with `environment` added to this process's; its
    /// standard input is a FIFO that `type` writes to.
    init(_ arguments: [String], environment: [String: String]) throws {
        outputPath = NSTemporaryDirectory() + "/mailwake-terminal-\(UUID().uuidString).log"
        inputPath = NSTemporaryDirectory() + "/mailwake-terminal-\(UUID().uuidString).in"
        guard mkfifo(inputPath, 0o600) == 0 else { throw TestHarnessError("mkfifo failed") }
        child = try ChildProcess.spawn("/bin/sh", ["-c", "exec /usr/bin/env \"$@\" < \"\(inputPath)\"", "sh"]
                                       + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                                       + [OutpostCommandLineTests.executable] + arguments, directory: nil, outputPath: outputPath)
        // The shell blocks opening the FIFO until a writer comes: open and keep it from a thread of its own.
        let path = inputPath, box = writerBox
        OwnThread.start(name: "terminal-stdin") {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            box.fd.withLock { $0 = fd >= 0 ? fd : nil }
        }
    }
    private let writerBox = WriterBox()

    /// The write end of the FIFO, once the shell opened the read end.
    private final class WriterBox: Sendable {
        let fd = Mutex<Int32?>(nil)
    }

    deinit {
        if let fd = writerBox.fd.withLock({ $0 }) { close(fd) }
        unlink(outputPath)
        unlink(inputPath)
    }

    /// Types `line` and Return.
    func type(_ line: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while writerBox.fd.withLock({ $0 }) == nil {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("the outpost never opened its standard input") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let fd = writerBox.fd.withLock { $0 }!
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Everything printed so far.
    var output: String { ChildProcess.readTextFile(outputPath) ?? "" }

    /// Waits until a printed line satisfies `match` and returns it.
    func line(timeout: Double = 60, where match: @Sendable (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if let line = output.split(separator: "\n").map(String.init).first(where: match) { return line }
            guard ContinuousClock.now < deadline,
                  child.isRunning || output.split(separator: "\n").contains(where: { match(String($0)) }) else {
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
