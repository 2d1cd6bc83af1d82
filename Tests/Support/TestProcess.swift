public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MailwakeCore
import Synchronization

/// A child process for a test server: stderr (and stdout unless piped) go to
/// a log file; `stop()` ends it (SIGTERM, SIGKILL after 2 s) and reaps it.
///
/// Started as a `SpawnedProcess`: descriptors 0, 1 and 2 only, an empty
/// signal mask and default signal handlers (Foundation's `Process` leaks
/// under LeakSanitizer). The waiting calls (`waitForListener`,
/// `readStdoutLine`, `stop`) block: call them from a thread of your own
/// (`Blocking.run`); on a cooperative-pool thread they record an issue.
public final class TestServerProcess: Sendable {
    public let pid: Int32
    /// Where the process's stderr goes (and stdout unless piped).
    public let logFile: URL
    private let process: SpawnedProcess
    private let state = Mutex<(stopped: Bool, stdoutClosed: Bool)>((false, false))

    /// Starts `executable` with `arguments`. When `pipeStdout` is true the
    /// caller reads stdout with `readStdoutLine()`.
    public init(executable: String, arguments: [String], logName: String, pipeStdout: Bool = false) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestHarnessError("\(executable) is missing: run scripts/bootstrap")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-test-logs", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        logFile = dir.appendingPathComponent("\(logName)-\(UUID().uuidString).log")
        do {
            process = try SpawnedProcess.spawn(executable, arguments, stdin: .null,
                                               stdout: pipeStdout ? .pipe : .file(path: logFile.path, append: false),
                                               stderr: pipeStdout ? .file(path: logFile.path, append: false) : .sameAsStdout)
        } catch {
            throw TestHarnessError(error.description)
        }
        pid = process.pid
    }

    deinit {
        // Never block the releasing thread (often a pool thread): end the process from a thread of its own.
        if !state.withLock({ $0.stopped }) {
            let process = self.process, logFile = self.logFile
            OwnThread.start(name: "mw-test-stop") {
                Self.terminate(process)
                try? FileManager.default.removeItem(at: logFile)
            }
        }
        closeStdout()
    }

    private func closeStdout() {
        state.withLock { s in
            if !s.stdoutClosed, process.stdoutPipe >= 0 { close(process.stdoutPipe) }
            s.stdoutClosed = true
        }
    }

    /// The log so far.
    public func logText() -> String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// Reads one line from the piped stdout (blocking), without its newline; nil at end of file.
    public func readStdoutLine() -> String? {
        Blocking.requireOffPool("TestServerProcess.readStdoutLine")
        let fd = process.stdoutPipe
        guard fd >= 0, !state.withLock({ $0.stdoutClosed }) else { return nil }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        // A signal interrupts read with EINTR: read on, so a line is never cut.
        while true {
            let n = read(fd, &byte, 1)
            if n < 0, errno == EINTR { continue }
            guard n == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// False once the process has exited (it is reaped then).
    public var isRunning: Bool { process.isRunning }

    /// Stops the process and removes the log unless `keepLog`. Idempotent.
    ///
    /// On a thread of its own it returns once the process has exited (SIGTERM,
    /// SIGKILL after 2 s). On a cooperative-pool thread (a `defer` in an async
    /// test) it never blocks: SIGTERM is sent at once and the rest happens on
    /// a thread of its own.
    public func stop(keepLog: Bool = false) {
        guard !state.withLock({ s in defer { s.stopped = true }; return s.stopped }) else { return }
        let process = self.process, logFile = self.logFile
        let finish: @Sendable () -> Void = {
            Self.terminate(process)
            if !keepLog { try? FileManager.default.removeItem(at: logFile) }
        }
        if Blocking.onPoolThread {
            process.signal(SIGTERM)
            OwnThread.start(name: "mw-test-stop", finish)
        } else {
            finish()
        }
    }

    /// SIGTERM, SIGKILL after 30 s (a stalled CI machine must not turn a clean stop into a kill), then reaps.
    private static func terminate(_ process: SpawnedProcess) {
        guard process.isRunning else { return }
        process.signal(SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(2_000) }
        if process.isRunning {
            process.signal(SIGKILL)
            process.waitForExit()
        }
    }

    /// Waits until a TCP connection to 127.0.0.1:`port` succeeds; false when
    /// the process exits first or `timeout` passes.
    public func waitForListener(port: UInt16, timeout: TimeInterval = 30) -> Bool {
        Blocking.requireOffPool("TestServerProcess.waitForListener")
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard isRunning else { return false }
            if Self.canConnect(port: port) {
                // The port answering is not proof that *we* bound it: another
                // test's server may have taken it between allocation and our
                // bind, and then our process exits with EADDRINUSE. Give it a
                // moment and require it to be alive still.
                usleep(150_000)
                return isRunning && Self.canConnect(port: port)
            }
            usleep(20_000)
        }
        return false
    }

    static func canConnect(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
