import Foundation
import MailwakeCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for tests.
///
/// `initdb` into a temporary directory, `postgres` listening on 127.0.0.1 at
/// a free port and on a Unix socket in that directory, password (SCRAM)
/// authentication for a generated superuser `mailwake`. When the tests run as
/// root (CI), the server runs as the unprivileged `postgres` system user
/// (`setpriv`), with the directory handed to it.
///
/// `shared()` is one server per test process (or the one named by
/// `MAILWAKE_TEST_POSTGRES_URL`, which `scripts/test` starts with
/// `scripts/lib/postgres.sh`); `start()` makes a private one for tests that
/// kill or restart it.
// Safe to share: the connection facts are immutable; the process and data directory are guarded by `lock`.
public final class PostgresTestServer: @unchecked Sendable {
    /// `postgres://mailwake:<password>@127.0.0.1:<port>/postgres?sslmode=disable`.
    public let url: String
    public let host: String
    public let port: Int
    public let user: String
    public let password: String
    /// The Unix socket directory (nil for an external server).
    public let socketDirectory: String?
    /// True when the server came from `MAILWAKE_TEST_POSTGRES_URL` (cannot be killed or restarted).
    public let isExternal: Bool

    let directory: URL?
    let binDirectory: URL?
    /// Extra `-c name=value` server settings given at every start (replication, for a primary).
    let settings: [String]
    private let lock = NSLock()
    private var process: ChildProcess?

    // MARK: shared

    private static let sharedServer: Result<PostgresTestServer, TestHarnessError> = {
        if let url = ProcessInfo.processInfo.environment["MAILWAKE_TEST_POSTGRES_URL"], !url.isEmpty {
            return .success(PostgresTestServer(externalURL: url))
        }
        do {
            let server = try startBlocking()
            sharedForCleanup.withLock { $0 = server }
            atexit { PostgresTestServer.sharedForCleanup.withLock { $0 }?.stop() }
            return .success(server)
        } catch let error as TestHarnessError {
            return .failure(error)
        } catch {
            return .failure(TestHarnessError("\(error)"))
        }
    }()

    private static let sharedForCleanup = Mutex<PostgresTestServer?>(nil)

    /// The server shared by the ordinary tests of this process (started on
    /// first use, off Swift's cooperative threads).
    public static func shared() async throws -> PostgresTestServer {
        try await offload { try sharedServer.get() }
    }

    /// Creates and starts a private cluster without blocking a cooperative thread.
    ///
    /// - Parameter settings: extra `-c name=value` server settings.
    public static func start(settings: [String] = []) async throws -> PostgresTestServer {
        try await offload { try startBlocking(settings: settings) }
    }

    /// `kill()` without blocking a cooperative thread.
    public func kill() async {
        await Self.offload { self.killBlocking() }
    }

    /// `restart()` without blocking a cooperative thread.
    public func restart() async throws {
        try await Self.offload { try self.restartBlocking() }
    }

    /// Runs blocking harness work (process spawns, waits) on a thread of its own.
    private static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await Blocking.run(work)
    }

    private static func offload(_ work: @escaping @Sendable () -> Void) async {
        await Blocking.run(work)
    }

    init(externalURL: String) {
        url = externalURL
        isExternal = true
        directory = nil
        binDirectory = nil
        settings = []
        socketDirectory = nil
        // Best-effort split of the URL for tests that want the parts.
        var rest = Substring(externalURL)
        if let r = rest.range(of: "://") { rest = rest[r.upperBound...] }
        var userInfo: Substring = ""
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        // The first server of a host list (`a:1,b:2`).
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "," }
        let parts = userInfo.split(separator: ":", maxSplits: 1)
        user = parts.first.map(String.init)?.removingPercentEncoding ?? "postgres"
        password = parts.count > 1 ? String(parts[1]).removingPercentEncoding ?? "" : ""
        if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = Int(authority[authority.index(after: colon)...]) ?? 5432
        } else {
            host = String(authority)
            port = 5432
        }
    }

    init(directory: URL, binDirectory: URL, port: Int, password: String, settings: [String] = []) {
        self.directory = directory
        self.binDirectory = binDirectory
        self.settings = settings
        self.port = port
        self.password = password
        self.user = "mailwake"
        self.host = "127.0.0.1"
        self.socketDirectory = directory.appendingPathComponent("sock").path
        self.isExternal = false
        // A generous connect timeout, as scripts/lib/postgres.sh gives: a stalled CI machine must not fail a login.
        self.url = "postgres://mailwake:\(password)@127.0.0.1:\(port)/postgres?sslmode=disable&connect_timeout=60"
    }

    /// The URL of another database on this server.
    public func url(database: String) -> String {
        guard let slash = url.range(of: "/", options: [],
                                    range: url.range(of: "://")!.upperBound..<url.endIndex) else { return url + "/" + database }
        let query = url[slash.upperBound...].firstIndex(of: "?").map { String(url[$0...]) } ?? ""
        return String(url[..<slash.upperBound]) + database + query
    }

    // MARK: private servers

    /// Creates and starts a new cluster (blocks the calling thread).
    ///
    /// - Parameter settings: extra `-c name=value` server settings for every start.
    public static func startBlocking(settings: [String] = []) throws -> PostgresTestServer {
        Blocking.requireOffPool("PostgresTestServer.startBlocking")
        let bin = try findBinaries()
        cleanUpAbandonedClusters()
        let dir = try makeClusterDirectory()
        let password = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let pwfile = dir.appendingPathComponent("pwfile")
        try (password + "\n").write(to: pwfile, atomically: true, encoding: .utf8)
        if let owner = try serviceUser() { chown(pwfile.path, owner.uid, owner.gid) }
        let make = { (port: Int) in PostgresTestServer(directory: dir, binDirectory: bin, port: port, password: password,
                                                       settings: settings) }
        let server = make(Int(try PortAllocator.freePort()))
        try server.run(tool: "initdb", [
            "-D", server.dataDirectory, "-U", "mailwake", "--pwfile=\(pwfile.path)", "-A", "scram-sha-256",
            "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions",
        ])
        try? FileManager.default.removeItem(at: pwfile)
        return try launch(server, orOnAnotherPort: make)
    }

    /// Launches `first`; when its port was taken meanwhile, launches `make(newPort)` instead (a few times).
    ///
    /// A port free a moment ago may be taken before the postmaster binds it (by another
    /// server, or as the source port of any outgoing connection): try again with a new one.
    static func launch(_ first: PostgresTestServer, orOnAnotherPort make: (Int) -> PostgresTestServer) throws -> PostgresTestServer {
        var server = first
        for attempt in 1... {
            do {
                try server.launch()
                return server
            } catch {
                guard attempt < 5, "\(error)".contains("Address already in use") else {
                    server.stop()
                    throw error
                }
                server = make(Int(try PortAllocator.freePort()))
            }
        }
        preconditionFailure("unreachable")
    }

    /// A new `/tmp/mailwake-pg-<pid>-<random>` with its `sock` directory, owned by the server's user.
    static func makeClusterDirectory() throws -> URL {
        let base = FileManager.default.fileExists(atPath: "/tmp") ? URL(fileURLWithPath: "/tmp") : FileManager.default.temporaryDirectory
        let dir = base.appendingPathComponent("mailwake-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let sock = dir.appendingPathComponent("sock")
        try FileManager.default.createDirectory(at: sock, withIntermediateDirectories: true)
        if let owner = try serviceUser() {
            for path in [dir.path, sock.path] { chown(path, owner.uid, owner.gid) }
        }
        return dir
    }

    var dataDirectory: String { directory!.appendingPathComponent("data").path }
    private var logFile: String { directory!.appendingPathComponent("postgres.log").path }

    func launch() throws {
        guard let binDirectory, let socketDirectory, let directory else { throw TestHarnessError("external server cannot be started") }
        let (exe, args) = try Self.asServiceUser(binDirectory.appendingPathComponent("postgres").path, [
            "-D", dataDirectory, "-p", String(port), "-k", socketDirectory,
            "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
            "-c", "full_page_writes=off", "-c", "max_connections=1000", "-c", "dynamic_shared_memory_type=mmap",
            "-c", "logging_collector=off", "-c", "log_min_messages=warning", "-c", "password_encryption=scram-sha-256",
        ] + settings.flatMap { ["-c", $0] })
        let process = try ChildProcess.spawn(exe, args, directory: directory.path, outputPath: logFile)
        lock.withLock { self.process = process }
        let isReady = binDirectory.appendingPathComponent("pg_isready").path
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if !process.isRunning {
                throw TestHarnessError("postgres exited (\(process.waitForExit())): \(logTail())")
            }
            if (try? ChildProcess.run(isReady, ["-h", "127.0.0.1", "-p", String(port), "-q"], directory: nil)) != nil { return }
            usleep(100_000)
        }
        throw TestHarnessError("postgres did not become ready within 60 s: \(logTail())")
    }

    func logTail() -> String {
        let text = ChildProcess.readTextFile(logFile) ?? ""
        return String(text.suffix(2000))
    }

    /// Stops the server (fast shutdown) and deletes its directory. Idempotent.
    ///
    /// On a cooperative-pool thread (a `defer` in an async test) it does not
    /// wait: SIGINT goes out at once, the wait and the clean-up happen on a
    /// thread of its own.
    public func stop() {
        guard !isExternal else { return }
        if Blocking.onPoolThread {
            lock.withLock { self.process }?.signal(SIGINT)
            OwnThread.start(name: "mw-test-pgstop") { self.stop() }
            return
        }
        if let process = lock.withLock({ self.process }) {
            if process.isRunning {
                process.signal(SIGINT)
                if !process.waitForExit(seconds: 15) {
                    process.signal(SIGKILL)
                    process.waitForExit()
                }
            }
            lock.withLock { self.process = nil }
        }
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Kills the postmaster and every server process with SIGKILL, as a crash would.
    public func killBlocking() {
        precondition(!isExternal, "cannot kill an external server")
        guard let process = lock.withLock({ self.process }) else { return }
        let children = Self.childProcesses(of: process.pid)
        process.signal(SIGKILL)
        for child in children { Glibc.kill(child, SIGKILL) }
        process.waitForExit()
        for child in children { _ = Self.waitGone(child, seconds: 10) }
        lock.withLock { self.process = nil }
    }

    /// Starts the server again on the same port and data directory (after `kill()` or a crash).
    public func restartBlocking() throws {
        precondition(!isExternal, "cannot restart an external server")
        if lock.withLock({ self.process })?.isRunning == true { killBlocking() }
        try launch()
    }

    // MARK: helpers

    static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw TestHarnessError("PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (install the postgresql package, " +
                               "scripts/bootstrap)")
    }

    static func serviceUser() throws -> (uid: uid_t, gid: gid_t)? {
        guard geteuid() == 0 else { return nil }
        guard let pw = getpwnam("postgres") else {
            throw TestHarnessError("running as root but there is no postgres system user to run the server as (install the postgresql " +
                                   "package)")
        }
        return (pw.pointee.pw_uid, pw.pointee.pw_gid)
    }

    private static func asServiceUser(_ exe: String, _ args: [String]) throws -> (String, [String]) {
        guard let owner = try serviceUser() else { return (exe, args) }
        return ("/usr/bin/setpriv", ["--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--clear-groups", "--", exe] + args)
    }

    @discardableResult
    func run(tool: String, _ args: [String]) throws -> String {
        let path = binDirectory!.appendingPathComponent(tool).path
        let (exe, fullArgs) = try Self.asServiceUser(path, args)
        return try ChildProcess.run(exe, fullArgs, directory: directory?.path)
    }

    /// PIDs whose parent is `pid` (from /proc).
    private static func childProcesses(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let child = pid_t(entry), let stat = ChildProcess.readTextFile("/proc/\(entry)/stat"),
                  let close = stat.range(of: ")", options: .backwards) else { return nil }
            let fields = stat[close.upperBound...].split(separator: " ")
            guard fields.count > 2, let ppid = pid_t(fields[1]) else { return nil }
            return ppid == pid ? child : nil
        }
    }

    /// Whether the process is gone (or a zombie) within `seconds`.
    private static func waitGone(_ pid: pid_t, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if Glibc.kill(pid, 0) != 0 { return true }
            if let stat = ChildProcess.readTextFile("/proc/\(pid)/stat"),
               let close = stat.range(of: ")", options: .backwards),
               stat[close.upperBound...].split(separator: " ").first == "Z" { return true }
            usleep(20_000)
        }
        return false
    }

    /// Clusters left by test processes that died without cleaning up: stop their server, remove the directory.
    private static func cleanUpAbandonedClusters() {
        let base = "/tmp"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        for entry in entries where entry.hasPrefix("mailwake-pg-") {
            let parts = entry.split(separator: "-")
            guard parts.count >= 4, let owner = pid_t(parts[2]), owner != getpid() else { continue }
            if Glibc.kill(owner, 0) == 0 || errno == EPERM { continue }  // its test process is alive
            let dir = base + "/" + entry
            if let pidText = ChildProcess.readTextFile(dir + "/data/postmaster.pid"),
               let line = pidText.split(separator: "\n").first, let pm = pid_t(line),
               let cmdline = ChildProcess.readTextFile("/proc/\(pm)/cmdline"), cmdline.contains(dir) {
                let children = childProcesses(of: pm)
                Glibc.kill(pm, SIGKILL)
                children.forEach { Glibc.kill($0, SIGKILL) }
                _ = waitGone(pm, seconds: 5)
            }
            try? FileManager.default.removeItem(atPath: dir)
        }
    }
}
