import Foundation

/// Where a benchmark runs its processes: the relay alone on some CPUs, everything else (this process with its load
/// client and accounts, the APNs simulator, a local PostgreSQL server) on the rest, as when the relay has a machine
/// of its own. Placement goes through `taskset` (util-linux): Swift does not see glibc's `sched_setaffinity`.
///
/// Every method that runs `taskset` blocks: call it from a thread of its own (`OwnThread`).
public struct CPUPlacement: Sendable {
    /// The relay's CPUs, ascending.
    public let relay: [Int]
    /// The other CPUs this process may use, ascending.
    public let others: [Int]

    static let taskset = "/usr/bin/taskset"

    /// - Parameters:
    ///   - relayList: a CPU list as `taskset -c` takes it (`0`, `0-1`, `0,2`).
    ///   - online: the CPUs this process may use now (the default reads them from the kernel).
    public init(relayList: String, online: [Int] = CPUPlacement.allowedCPUs()) throws {
        guard let relay = Self.parse(relayList) else {
            throw BenchError("--relay-cpus takes a CPU list such as 0 or 0-1 or 0,2, not \"\(relayList)\"")
        }
        let missing = relay.filter { !online.contains($0) }, allowed = "this process may use CPUs \(Self.list(online))"
        guard missing.isEmpty else { throw BenchError("--relay-cpus names CPU \(Self.list(missing)), but \(allowed)") }
        let others = online.filter { !relay.contains($0) }
        guard !others.isEmpty else { throw BenchError("--relay-cpus leaves no CPU for the rest (\(allowed))") }
        guard FileManager.default.isExecutableFile(atPath: Self.taskset) else {
            throw BenchError("--relay-cpus needs \(Self.taskset) (Debian: apt-get install util-linux)")
        }
        self.relay = relay
        self.others = others
    }

    /// The relay's CPUs as a `taskset -c` list.
    public var relayList: String { Self.list(relay) }
    /// The other CPUs as a `taskset -c` list.
    public var othersList: String { Self.list(others) }

    /// The executable and arguments that start `executable` on the relay's CPUs.
    public func relayLaunch(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        (Self.taskset, ["-c", relayList, executable] + arguments)
    }

    /// Moves every thread of this process to the other CPUs; threads and processes it starts afterwards inherit them.
    public func placeThisProcess() throws {
        try Self.run(["-a", "-p", "-c", othersList, String(getpid())])
    }

    /// Moves a local PostgreSQL server (the postmaster of backend `backendPID`, and every process it has started) to the
    /// other CPUs; backends it starts afterwards inherit them. Returns what `restore` needs to put them back.
    ///
    /// - Parameters:
    ///   - backendPID: `pg_backend_pid()` of a connection of this process.
    ///   - clientPort: that connection's `inet_client_port()` (nil over a Unix socket). The backend's process title
    ///     names it, which tells the server's process from one that has the same number in another PID namespace.
    /// - Throws: when the backend is not a process of this machine (a remote server, a container) or may not be moved.
    public func placePostgres(backendPID: Int32, clientPort: Int32?) throws -> PostgresPlacement {
        let title = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(backendPID)/cmdline")))
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard title.contains(clientPort.map { "(\($0))" } ?? "[local]"),
              let postmaster = BenchSystem.parent(of: backendPID),
              let name = try? String(contentsOfFile: "/proc/\(postmaster)/comm", encoding: .utf8),
              name.hasPrefix("postgres") else {
            throw BenchError("PostgreSQL's backend \(backendPID) is not a process of this machine")
        }
        guard let saved = Self.allowedCPUs(of: String(postmaster)) else {
            throw BenchError("the CPUs of PostgreSQL's postmaster \(postmaster) are unreadable")
        }
        let placed = PostgresPlacement(postmaster: postmaster, saved: Self.list(saved))
        do {
            // The postmaster first: what it starts while its children are moved inherits its CPUs.
            try Self.run(["-a", "-p", "-c", othersList, String(postmaster)])
            for pid in Self.children(of: postmaster) { try Self.run(["-a", "-p", "-c", othersList, String(pid)]) }
        } catch {
            placed.restore()
            throw error
        }
        return placed
    }

    /// What `placePostgres` changed.
    public struct PostgresPlacement: Sendable {
        let postmaster: Int32
        /// The postmaster's CPU list before.
        let saved: String

        /// Puts the postmaster and the processes it runs now back on their CPUs (best effort).
        public func restore() {
            _ = try? CPUPlacement.run(["-a", "-p", "-c", saved, String(postmaster)])
            for pid in CPUPlacement.children(of: postmaster) { _ = try? CPUPlacement.run(["-a", "-p", "-c", saved, String(pid)]) }
        }
    }

    /// The CPUs this process may use now (CPU 0 when unreadable).
    public static func allowedCPUs() -> [Int] { allowedCPUs(of: "self") ?? [0] }

    /// The CPUs process `pid` may use now (`Cpus_allowed_list` of its /proc status), nil when unreadable.
    static func allowedCPUs(of pid: String) -> [Int]? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else { return nil }
        return parse(line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces))
    }

    /// The CPUs of a list such as `0-2,5` (ascending, each once), nil when it is not one.
    static func parse(_ list: String) -> [Int]? {
        var cpus = Set<Int>()
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count),
                  let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]),
                  bounds.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  low <= high, high < 4096 else { return nil }
            cpus.formUnion(low...high)
        }
        return cpus.isEmpty ? nil : cpus.sorted()
    }

    /// `cpus` as a comma-separated list.
    static func list(_ cpus: [Int]) -> String { cpus.map(String.init).joined(separator: ",") }

    /// The processes whose parent is `pid` now (from /proc).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { BenchSystem.parent(of: $0) == pid }
    }

    /// Runs taskset with `arguments`; returns what it printed, throws when it fails.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let (status, text) = try BenchSystem.output(of: taskset, arguments)
        guard status == 0 else {
            throw BenchError("taskset \(arguments.joined(separator: " ")) failed: \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return text
    }
}
