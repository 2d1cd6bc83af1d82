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

    /// Voluntary context switches of all the process's threads so far (a
    /// thread blocked or went to sleep), from /proc: what the design causes,
    /// unlike the involuntary ones, which count how busy the machine is.
    public var contextSwitches: Int {
        var total = 0
        forEachThread { thread in
            guard let status = try? String(contentsOfFile: thread + "/status", encoding: .utf8) else { return }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                total += Int(line.dropFirst("voluntary_ctxt_switches:".count).trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return total
    }

    /// CPU seconds so far of each live thread of the process, summed by
    /// `group` of the thread's name (`/proc/<pid>/task/<tid>/schedstat`,
    /// nanoseconds; threads that have ended are not counted).
    public func threadCPUSeconds(groupedBy group: (String) -> String) -> [String: Double] {
        var totals: [String: Double] = [:]
        forEachThread { thread in
            guard let name = try? String(contentsOfFile: thread + "/comm", encoding: .utf8),
                  let schedstat = try? String(contentsOfFile: thread + "/schedstat", encoding: .utf8),
                  let nanoseconds = schedstat.split(separator: " ").first.flatMap({ Double($0) }) else { return }
            totals[group(name.trimmingCharacters(in: .newlines)), default: 0] += nanoseconds / 1e9
        }
        return totals
    }

    /// Calls `body` with the /proc directory of each live thread of the process.
    private func forEachThread(_ body: (String) -> Void) {
        let tasks = "/proc/\(process.processIdentifier)/task"
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] { body(tasks + "/" + tid) }
    }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
