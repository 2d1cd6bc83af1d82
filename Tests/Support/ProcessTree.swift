import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The processes below a test server's own (read from /proc), to drop its connections or end what it leaves behind.
public enum ProcessTree {
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
