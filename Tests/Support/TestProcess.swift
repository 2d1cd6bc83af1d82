public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A child process for a test server: stderr (and stdout unless piped) go to
/// a log file; `stop()` ends it (SIGTERM, SIGKILL after 2 s) and reaps it.
///
/// Spawned with `posix_spawn` rather than Foundation's `Process`: a child
/// started from a Dispatch worker thread would inherit its blocked signal
/// mask (SIGTERM then never arrives), and `Process` leaks under
/// LeakSanitizer. Here the child gets an empty signal mask, default signal
/// handlers, and no file descriptors but 0, 1 and 2.
public final class TestServerProcess: Sendable {
    public let pid: pid_t
    /// Where the process's stderr goes (and stdout unless piped).
    public let logFile: URL
    /// Read end of the stdout pipe, or -1.
    private let stdoutFD: Int32
    private let state = Mutex<(stopped: Bool, exited: Bool)>((false, false))

    /// Starts `executable` with `arguments`. When `pipeStdout` is true the
    /// caller reads stdout with `readStdoutLine()`.
    public init(executable: String, arguments: [String], logName: String, pipeStdout: Bool = false) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestHarnessError("\(executable) is missing: run scripts/bootstrap")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-test-logs", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        logFile = dir.appendingPathComponent("\(logName)-\(UUID().uuidString).log")
        let logFD = open(logFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard logFD >= 0 else { throw TestHarnessError("cannot create \(logFile.path)") }
        defer { close(logFD) }
        var pipeFDs: [Int32] = [-1, -1]
        if pipeStdout {
            guard pipe(&pipeFDs) == 0 else { throw TestHarnessError("pipe failed") }
            for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeStdout ? pipeFDs[1] : logFD, 1)
        posix_spawn_file_actions_adddup2(&actions, logFD, 2)
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        if pipeStdout { close(pipeFDs[1]) }
        guard rc == 0 else {
            if pipeStdout { close(pipeFDs[0]) }
            throw TestHarnessError("posix_spawn \(executable) failed: \(String(cString: strerror(rc)))")
        }
        pid = child
        stdoutFD = pipeFDs[0]
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which the
    /// Swift Glibc module hides behind _GNU_SOURCE: without it the child
    /// would inherit every descriptor opened without O_CLOEXEC (sockets).
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    deinit {
        stop()
        if stdoutFD >= 0 { close(stdoutFD) }
    }

    /// The log so far.
    public func logText() -> String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// Reads one line from the piped stdout (blocking; empty at EOF).
    public func readStdoutLine() -> String {
        guard stdoutFD >= 0 else { return "" }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(stdoutFD, &byte, 1) == 1 {
            if byte == 0x0A { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// False once the process has exited (it is reaped then).
    public var isRunning: Bool {
        state.withLock { s in
            guard !s.exited else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { s.exited = true }
            return !s.exited
        }
    }

    /// Stops the process and removes the log unless `keepLog`. Idempotent.
    public func stop(keepLog: Bool = false) {
        guard !state.withLock({ s in defer { s.stopped = true }; return s.stopped }) else { return }
        if isRunning {
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(2)
            while isRunning, Date() < deadline { usleep(2_000) }
            if isRunning {
                kill(pid, SIGKILL)
                state.withLock { s in
                    var status: Int32 = 0
                    _ = waitpid(pid, &status, 0)
                    s.exited = true
                }
            }
        }
        if !keepLog { try? FileManager.default.removeItem(at: logFile) }
    }

    /// Waits until a TCP connection to 127.0.0.1:`port` succeeds; false when
    /// the process exits first or `timeout` passes.
    public func waitForListener(port: UInt16, timeout: TimeInterval = 10) -> Bool {
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

/// Runs blocking work (starting processes, waiting for them, file I/O) on a
/// thread of its own, so that async tests running in parallel do not starve
/// Swift's cooperative thread pool (two threads on a two-core machine) and
/// skew each other's timings.
public func runOffPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
