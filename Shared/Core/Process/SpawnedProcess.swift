import CSpawnShims
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn` that inherits only descriptors 0, 1 and 2.
///
/// Every descriptor from 3 up is closed in the child
/// (`posix_spawn_file_actions_addclosefrom_np`), whether or not it was opened
/// with `O_CLOEXEC`, so a child never holds a socket, a pipe end or a log file
/// of its parent. The child also gets an empty signal mask and the default
/// action for the signals services change (a child started from a Dispatch
/// worker would otherwise inherit its blocked mask, and SIGTERM would never
/// arrive). Pipes are created close-on-exec.
///
/// `waitForExit()` blocks: call it from a thread of its own (`exitStatus()`
/// does that), never from a cooperative-pool thread.
public final class SpawnedProcess: Sendable {
    public let pid: Int32
    /// The parent's end of each `.pipe` redirection (close-on-exec, owned by the caller), or -1.
    public let stdinPipe: Int32
    public let stdoutPipe: Int32
    public let stderrPipe: Int32
    /// The exit code once reaped (128 + signal number when killed).
    private let reaped = Mutex<Int32?>(nil)

    private init(pid: pid_t, pipes: [Int32]) {
        self.pid = pid
        stdinPipe = pipes[0]
        stdoutPipe = pipes[1]
        stderrPipe = pipes[2]
    }

    /// Starts `executable` (a path; no search in PATH) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's environment; the parent's when nil.
    ///   - directory: the child's working directory; the parent's when nil.
    public static func spawn(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
                             stdin: SpawnRedirection = .null, stdout: SpawnRedirection = .inherit,
                             stderr: SpawnRedirection = .inherit) throws(SpawnError) -> SpawnedProcess {
        if stdin == .sameAsStdout || stdout == .sameAsStdout { throw SpawnError("only stderr can be redirected to stdout") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Parent ends [0...2], child ends [3...5]; -1 when unused.
        var ends: [Int32] = Array(repeating: -1, count: 6)
        func closeAll() { for fd in ends where fd >= 0 { close(fd) } }
        for (target, redirection) in [stdin, stdout, stderr].enumerated() {
            let fd = Int32(target)
            var rc: Int32 = 0
            switch redirection {
            case .inherit:
                continue
            case .null:
                rc = posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path, let append):
                rc = posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o600)
            case .descriptor(let source):
                rc = posix_spawn_file_actions_adddup2(&actions, source, fd)
            case .sameAsStdout:
                rc = posix_spawn_file_actions_adddup2(&actions, 1, fd)
            case .pipe:
                var pair: [Int32] = [-1, -1]
                guard mw_pipe_cloexec(&pair) == 0 else {
                    let reason = String(cString: strerror(errno))
                    closeAll()
                    throw SpawnError("cannot create a pipe for \(executable): \(reason)")
                }
                ends[target] = target == 0 ? pair[1] : pair[0]
                ends[target + 3] = target == 0 ? pair[0] : pair[1]
                rc = posix_spawn_file_actions_adddup2(&actions, ends[target + 3], fd)
            }
            if rc != 0 {
                closeAll()
                throw SpawnError("cannot prepare descriptor \(fd) for \(executable): \(String(cString: strerror(rc)))")
            }
        }
        if let directory, mw_spawn_file_actions_addchdir(&actions, directory) != 0 {
            closeAll()
            throw SpawnError("cannot prepare the working directory \(directory) for \(executable)")
        }
        // Last, after the dup2s whose sources it would otherwise close.
        let closing = mw_spawn_file_actions_addclosefrom(&actions, 3)
        guard closing == 0 else {
            closeAll()
            throw SpawnError("cannot close inherited descriptors for \(executable): \(String(cString: strerror(closing)))")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for p in envp ?? [] { free(p) } }
        var child: pid_t = 0
        let rc: Int32
        if let envp {
            rc = envp.withUnsafeBufferPointer { posix_spawn(&child, executable, &actions, &attributes, argv, $0.baseAddress) }
        } else {
            rc = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        }
        for fd in ends[3...] where fd >= 0 { close(fd) }
        guard rc == 0 else {
            for fd in ends[..<3] where fd >= 0 { close(fd) }
            throw SpawnError("cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        return SpawnedProcess(pid: child, pipes: Array(ends[..<3]))
    }

    /// The exit code if the child has exited (it is reaped then), nil while it runs.
    public var exitCode: Int32? {
        reaped.withLock { code in
            if let code { return code }
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { code = Self.decode(status) } else if r < 0 && errno == ECHILD { code = -1 }
            return code
        }
    }

    /// True until the child has exited.
    public var isRunning: Bool { exitCode == nil }

    /// Blocks the calling thread until the child exits; returns its exit code
    /// (128 + signal number when killed). Not on a cooperative-pool thread.
    @discardableResult
    public func waitForExit() -> Int32 {
        // Wait without reaping, so `exitCode` never blocks behind this call and the pid is not reused while signalled.
        var info = siginfo_t()
        while reaped.withLock({ $0 }) == nil, waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        return exitCode ?? -1
    }

    /// Waits for the exit on a thread of its own; returns the exit code.
    public func exitStatus() async -> Int32 {
        await OwnThread.run { self.waitForExit() }
    }

    /// Sends `signal` unless the child has been reaped already (its pid may belong to another process then).
    public func signal(_ signal: Int32) {
        reaped.withLock { code in
            if code == nil { _ = kill(pid, signal) }
        }
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
