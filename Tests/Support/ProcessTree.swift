import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The processes below a test server's own (read from /proc), to drop its connections or end what it leaves behind.
public enum ProcessTree {
    /// Stops `process` and SIGKILLs every process it started (a server master's children keep connections open otherwise).
    public static func stopWithDescendants(_ process: TestServerProcess) {
        let children = descendants(of: process.pid)
        process.stop()
        for child in children { kill(child.pid, SIGKILL) }
    }

    /// Stops and launches a server again, off the cooperative pool, retrying a launch that fails (a port not yet free)
    /// up to 10 times, 200 ms apart.
    ///
    /// - Parameter retryIf: whether a failed launch is worth another try (default: any failure).
    public static func relaunch(stop: @escaping @Sendable () -> Void, launch: @escaping @Sendable () throws -> Void,
                                retryIf: @escaping @Sendable (any Error) -> Bool = { _ in true }) async throws {
        try await Blocking.run {
            stop()
            var attempt = 0
            while true {
                attempt += 1
                do { return try launch() } catch {
                    guard attempt < 10, retryIf(error) else { throw error }
                    stop()
                    usleep(200_000)
                }
            }
        }
    }

    /// Every descendant of `root` (children, their children, …), with its command name.
    public static func descendants(of root: Int32) -> [(pid: Int32, name: String)] {
        var parents: [Int32: [Int32]] = [:]
        var names: [Int32: String] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let ppid = Int32(fields[1]) else { continue }
            parents[ppid, default: []].append(pid)
            names[pid] = String(stat[stat.index(after: open)..<close])
        }
        var found: [(Int32, String)] = []
        var queue = [root]
        while let next = queue.popLast() {
            for child in parents[next] ?? [] {
                found.append((child, names[child] ?? ""))
                queue.append(child)
            }
        }
        return found
    }

    /// Sends `signal` to the descendants of `root` named `name` (all of them when nil); returns how many.
    @discardableResult
    public static func signal(_ signal: Int32, descendantsOf root: Int32, named name: String? = nil) -> Int {
        let targets = descendants(of: root).filter { name == nil || $0.name == name }
        for target in targets { kill(target.pid, signal) }
        return targets.count
    }
}
