import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn` (Foundation's `Process` keeps
/// objects alive that LeakSanitizer reports), output appended to a file.
// Safe to share: `pid` is immutable and the exit state is guarded by `lock`.
public final class ChildProcess: @unchecked Sendable {
    public let pid: Int32
    private let lock = NSLock()
    private var exitStatus: Int32?

    private init(pid: Int32) { self.pid = pid }

    /// Starts `executable` with `arguments` in `directory`, stdin from
    /// /dev/null, stdout and stderr appended to `outputPath`.
    public static func spawn(_ executable: String, _ arguments: [String], directory: String?, outputPath: String) throws -> ChildProcess {
        // `cd` through the shell, which then execs the program (same pid).
        let argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory ?? "/", executable] + arguments
        let cArgs = argv.map { strdup($0) }
        let cEnv = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        var argvPointers = cArgs + [nil]
        var envPointers = cEnv + [nil]
        let rc = posix_spawn(&pid, "/bin/sh", &actions, nil, &argvPointers, &envPointers)
        guard rc == 0 else { throw TestHarnessError("posix_spawn \(executable) failed: \(String(cString: strerror(rc)))") }
        return ChildProcess(pid: pid)
    }

    /// Runs a program to completion; throws with its output when it fails.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], directory: String?) throws -> String {
        let output = NSTemporaryDirectory() + "/mailwake-run-\(UUID().uuidString).log"
        defer { unlink(output) }
        let child = try spawn(executable, arguments, directory: directory, outputPath: output)
        let status = child.waitForExit()
        let text = ChildProcess.readTextFile(output) ?? ""
        guard status == 0 else {
            throw TestHarnessError("\((executable as NSString).lastPathComponent) failed (\(status)): \(text.suffix(2000))")
        }
        return text
    }

    /// Reaps the child if it has exited; true while it runs.
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if exitStatus != nil { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid || (r < 0 && errno == ECHILD) {
            exitStatus = Self.decode(status)
            return false
        }
        return true
    }

    /// Blocks until the child exits; returns its exit code (128 + signal when killed).
    @discardableResult
    public func waitForExit() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = Self.decode(status)
        exitStatus = code
        return code
    }

    /// Waits up to `seconds` for the child to exit.
    public func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if !isRunning { return true }
            usleep(20_000)
        }
        return !isRunning
    }

    /// Sends a signal.
    public func signal(_ sig: Int32) { Glibc.kill(pid, sig) }

    private static func decode(_ status: Int32) -> Int32 {
        let sig = status & 0x7F
        return sig == 0 ? (status >> 8) & 0xFF : 128 + sig
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
