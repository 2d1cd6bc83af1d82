public import Foundation

/// A child process of the benchmark (the simulator, the relay) with its
/// stderr in a log file and its CPU time readable from /proc.
// @unchecked Sendable: `process` is only started, signalled and awaited; `Process` itself is thread-safe for these.
public final class BenchProcess: @unchecked Sendable {
    public let process: Process
    let stdout = Pipe()
    public let logPath: String

    public init(executable: String, arguments: [String], logPath: String) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError("\(executable) is missing: build it with `swift build -c release`")
        }
        self.logPath = logPath
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = stdout
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
    }

    /// The first line the process writes to stdout.
    public func firstLine() -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = stdout.fileHandleForReading.readData(ofLength: 1)
            guard let b = chunk.first, b != 0x0A else { break }
            bytes.append(b)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// User plus system CPU seconds the process has used so far.
    public var cpuSeconds: Double { BenchSystem.cpuSeconds(pid: process.processIdentifier) }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
