public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A child process for a test server, with stderr (and optionally stdout)
/// kept in a log file, killed by `stop()`.
public final class TestServerProcess: Sendable {
    public let process: Process
    /// Where the process's stderr goes (and stdout unless piped).
    public let logFile: URL
    private let stopped = Mutex(false)

    /// Starts `executable` with `arguments`. When `pipeStdout` is true the
    /// caller reads `process.standardOutput` (a `Pipe`).
    public init(executable: String, arguments: [String], logName: String, pipeStdout: Bool = false) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestHarnessError("\(executable) is missing: run scripts/bootstrap")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-test-logs", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        logFile = dir.appendingPathComponent("\(logName)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardError = log
        process.standardOutput = pipeStdout ? Pipe() : log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? log.close()
    }

    deinit { stop() }

    /// The log so far.
    public func logText() -> String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// Reads one line from the piped stdout (blocking; empty at EOF).
    public func readStdoutLine() -> String {
        guard let pipe = process.standardOutput as? Pipe else { return "" }
        var bytes: [UInt8] = []
        let fd = pipe.fileHandleForReading.fileDescriptor
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            if byte == 0x0A { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Stops the process (SIGKILL) and removes the log
    /// unless `keepLog`.
    public func stop(keepLog: Bool = false) {
        guard !stopped.withLock({ was in defer { was = true }; return was }) else { return }
        if process.isRunning {
            // SIGKILL, not SIGTERM: a child started from a Dispatch worker
            // thread inherits its blocked signal mask, so SIGTERM stays
            // pending forever. These test servers have nothing to clean up.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if !keepLog { try? FileManager.default.removeItem(at: logFile) }
    }

    /// Waits until a TCP connection to 127.0.0.1:`port` succeeds; false when
    /// the process exits first or `timeout` passes.
    public func waitForListener(port: UInt16, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning else { return false }
            if Self.canConnect(port: port) { return true }
            usleep(20_000)
        }
        return false
    }

    static func canConnect(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
