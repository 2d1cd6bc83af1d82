import Foundation
import MailwakeCore

/// What a benchmark asks of the machine: a free port, a certificate, the time.
public enum BenchSystem {
    /// Unix time in milliseconds.
    public static func nowMS() -> Double { WallClock.fractionalSeconds() * 1000 }

    /// CPU seconds the calling thread has used.
    public static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Says on stderr, after the program's name, where the run is (so a profiler can be attached to one phase).
    public static func progress(_ what: String) {
        FileHandle.standardError.write(Data("\(ProcessInfo.processInfo.processName): \(what)\n".utf8))
    }

    /// Runs /usr/bin/openssl (blocking: call it from a thread of its own).
    public static func openssl(_ arguments: [String]) throws {
        let status = try output(of: "/usr/bin/openssl", arguments).status
        guard status == 0 else { throw BenchError("openssl \(arguments.first ?? "") failed") }
    }

    /// Runs `path` with `arguments` and waits for it (blocking: call it from a thread of its own); returns its exit
    /// status and what it wrote to stdout and stderr.
    public static func output(of path: String, _ arguments: [String]) throws -> (status: Int32, text: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// User plus system CPU seconds of process `pid` so far (from /proc; 0 when it is gone),
    /// with `reapedChildren` also those of its children that ended and were waited for.
    public static func cpuSeconds(pid: Int32, reapedChildren: Bool = false) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime, stime, cutime and cstime are fields 14 to 17.
        guard fields.count > 14 else { return 0 }
        let ticks = (reapedChildren ? fields[11...14] : fields[11...12]).reduce(0.0) { $0 + (Double($1) ?? 0) }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The parent of process `pid` (from /proc), nil when it is gone.
    public static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// A TCP port free on 127.0.0.1 just now.
    public static func freePort() throws -> UInt16 {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self,
                                                                capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) } }
        return UInt16(bigEndian: addr.sin_port)
    }
}
