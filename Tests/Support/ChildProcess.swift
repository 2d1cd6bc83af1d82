import Foundation
import MailwakeCore
#if canImport(Glibc)
import Glibc
#endif

/// A child process of a test (`SpawnedProcess`: descriptors 0-2 only), output appended to a file.
///
/// The waiting calls block: use them on a thread of your own (`Blocking.run`,
/// or a suite marked `.offPool`); on a cooperative-pool thread they record an issue.
// Safe to share: `process` is immutable and `SpawnedProcess` is Sendable.
public final class ChildProcess: Sendable {
    private let process: SpawnedProcess
    public var pid: Int32 { process.pid }

    private init(_ process: SpawnedProcess) { self.process = process }

    /// Starts `executable` (a path, or a name looked up in PATH) with
    /// `arguments` in `directory`, stdin from /dev/null, stdout and stderr
    /// appended to `outputPath`.
    public static func spawn(_ executable: String, _ arguments: [String], directory: String?, outputPath: String) throws -> ChildProcess {
        let path = try resolve(executable)
        do {
            return ChildProcess(try SpawnedProcess.spawn(path, arguments, directory: directory, stdin: .null,
                                                         stdout: .file(path: outputPath, append: true), stderr: .sameAsStdout))
        } catch {
            throw TestHarnessError(error.description)
        }
    }

    /// Runs a program to completion; throws with its output when it fails. Blocks.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], directory: String?) throws -> String {
        Blocking.requireOffPool("ChildProcess.run(\((executable as NSString).lastPathComponent))")
        let output = NSTemporaryDirectory() + "/mailwake-run-\(UUID().uuidString).log"
        defer { unlink(output) }
        let child = try spawn(executable, arguments, directory: directory, outputPath: output)
        let status = child.process.waitForExit()
        let text = ChildProcess.readTextFile(output) ?? ""
        guard status == 0 else {
            throw TestHarnessError("\((executable as NSString).lastPathComponent) failed (\(status)): \(text.suffix(2000))")
        }
        return text
    }

    /// Reaps the child if it has exited; true while it runs.
    public var isRunning: Bool { process.isRunning }

    /// Blocks until the child exits; returns its exit code (128 + signal when killed).
    @discardableResult
    public func waitForExit() -> Int32 {
        Blocking.requireOffPool("ChildProcess.waitForExit")
        return process.waitForExit()
    }

    /// Waits for the exit without blocking a pool thread.
    public func exitStatus() async -> Int32 { await process.exitStatus() }

    /// Waits up to `seconds` for the child to exit. Blocks.
    public func waitForExit(seconds: Double) -> Bool {
        Blocking.requireOffPool("ChildProcess.waitForExit(seconds:)")
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if !isRunning { return true }
            usleep(20_000)
        }
        return !isRunning
    }

    /// Sends a signal (unless the child has been reaped).
    public func signal(_ sig: Int32) { process.signal(sig) }

    /// `executable` if it names a path, else the first match in PATH.
    static func resolve(_ executable: String) throws -> String {
        guard !executable.contains("/") else { return executable }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where access("\(dir)/\(executable)", X_OK) == 0 { return "\(dir)/\(executable)" }
        throw TestHarnessError("\(executable) not found in PATH")
    }

    /// Reads a whole file with POSIX calls (works for /proc files, which report
    /// size 0, and avoids a Foundation leak on empty files). Nil when unreadable.
    public static func readTextFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
