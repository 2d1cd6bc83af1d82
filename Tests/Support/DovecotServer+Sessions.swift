import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension DovecotServer {
    /// Process ids of this instance's `imap` processes serving `user` (one per connection by default).
    ///
    /// Read from the process titles (`verbose_proctitle`: `dovecot-<instance>/imap [alice 127.0.0.1 IDLE]`),
    /// not from `doveadm who`: that asks anvil over a socket and, on a loaded machine, came back empty for
    /// the whole wait while the process was there.
    public func imapProcessIDs(_ user: String) -> [Int32] {
        let prefix = "dovecot-\(instanceName)/imap [\(user) "
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let title = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else { return false }
            return String(decoding: title.prefix { $0 != 0 }, as: UTF8.self).hasPrefix(prefix)
        }.sorted()
    }

    /// Waits until exactly one `imap` process serves `user` and returns it.
    public func onlyIMAPProcess(_ user: String, timeout: Double = 60) async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let pids = imapProcessIDs(user)
            if pids.count == 1 { return pids[0] }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("\(pids.count) imap processes serve \(user), not 1: " +
                                                                               "\(pids)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Stops process `pid` with SIGSTOP: its connections stay open and the
    /// kernel keeps acknowledging what peers send, but nothing is ever
    /// answered (a hung server, or a path that drops packets). The test's
    /// cleanup continues and kills it.
    public func freeze(_ pid: Int32) throws {
        guard Self.isIMAPProcess(pid) else { throw TestHarnessError("\(pid) is not a Dovecot imap process") }
        guard kill(pid, SIGSTOP) == 0 else { throw TestHarnessError("SIGSTOP \(pid): \(String(cString: strerror(errno)))") }
        AwaitedCleanup.register {
            kill(pid, SIGCONT)
            kill(pid, SIGKILL)
        }
    }

    /// True once `pid` is stopped (state `T` in /proc/<pid>/stat).
    public static func isStopped(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first == "T"
    }

    private static func isIMAPProcess(_ pid: Int32) -> Bool {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "imap"
    }
}
