import Foundation
import MailwakeCore
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Children get descriptors 0, 1 and 2 only, whatever the parent has open.
///
/// The parent opens a pipe and a socket *without* close-on-exec (as a library
/// that forgets would), starts `sleep` through each way the code base spawns
/// processes, and reads the child's descriptors from /proc. A control child
/// started with a bare `posix_spawn` shows the leak, so the check can fail.
@Suite struct ChildDescriptorTests {
    /// The child's open descriptors once it runs `sleep` and they are what the test expects.
    ///
    /// Waits for the event, not for a time: a loaded machine can hold `sleep` in its start-up
    /// (its locale files open) for seconds. Gives up after 60 s and returns what it saw last,
    /// so a leak fails the expectation after that wait.
    /// - Parameters:
    ///   - pid: the child.
    ///   - expected: true for the list the test waits for.
    static func descriptors(of pid: Int32, until expected: @escaping @Sendable ([Int]) -> Bool) async -> [Int] {
        await Blocking.run {
            let deadline = Date().addingTimeInterval(60)
            var last: [Int] = []
            while Date() < deadline {
                let comm = ChildProcess.readTextFile("/proc/\(pid)/comm") ?? ""
                last = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).compactMap { Int($0) }.sorted()
                if comm.hasPrefix("sleep"), expected(last) { return last }
                usleep(20_000)
            }
            return last
        }
    }

    /// Descriptors 0, 1 and 2 only, once the child runs `sleep`.
    static func standardDescriptorsOnly(of pid: Int32) async -> [Int] {
        await descriptors(of: pid) { $0 == [0, 1, 2] }
    }

    /// A pipe and a socket that every child would inherit without `closefrom`.
    static func leakyDescriptors() -> [Int32] {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        return fds + [socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)]
    }

    @Test func everySpawnerClosesInheritedDescriptors() async throws {
        let leaky = Self.leakyDescriptors()
        defer { for fd in leaky { close(fd) } }
        try #require(leaky.allSatisfy { $0 > 2 })

        let core = try SpawnedProcess.spawn("/bin/sleep", ["30"])
        #expect(await Self.standardDescriptorsOnly(of: core.pid) == [0, 1, 2], "SpawnedProcess")
        core.signal(SIGKILL)
        _ = await core.exitStatus()

        let log = NSTemporaryDirectory() + "/mailwake-fd-test-\(UUID().uuidString).log"
        defer { unlink(log) }
        let child = try ChildProcess.spawn("sleep", ["30"], directory: "/", outputPath: log)
        #expect(await Self.standardDescriptorsOnly(of: child.pid) == [0, 1, 2], "ChildProcess (PostgreSQL, openssl, doveadm)")
        child.signal(SIGKILL)
        _ = await child.exitStatus()

        let server = try TestServerProcess(executable: "/bin/sleep", arguments: ["30"], logName: "fd-test", pipeStdout: true)
        #expect(await Self.standardDescriptorsOnly(of: server.pid) == [0, 1, 2], "TestServerProcess (Dovecot, nghttpd, the simulator)")
        await Blocking.run { server.stop() }
    }

    @Test func theCheckSeesADescriptorABareSpawnLeaks() async throws {
        let leaky = Self.leakyDescriptors()
        defer { for fd in leaky { close(fd) } }
        var spawned: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sleep", "30"].map { (s: String) in strdup(s) } + [nil]
        defer { for p in argv { free(p) } }
        // Deliberately without file actions (no addclosefrom_np): this child must inherit the leaky descriptors.
        try #require(posix_spawn(&spawned, "/bin/sleep", nil, nil, argv, environ) == 0)
        let pid = spawned
        let inherited = leaky.map(Int.init)
        let seen = await Self.descriptors(of: pid) { seen in inherited.allSatisfy(seen.contains) }
        kill(pid, SIGKILL)
        _ = await Blocking.run { () -> Int32 in
            var status: Int32 = 0
            return waitpid(pid, &status, 0)
        }
        for fd in leaky { #expect(seen.contains(Int(fd)), "descriptor \(fd) is inherited without closefrom") }
    }

    @Test func pipesAreCloseOnExec() throws {
        let fds = try #require(FileDescriptorIO.makePipe())
        defer { close(fds.read); close(fds.write) }
        #expect(fcntl(fds.read, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(fds.write, F_GETFD) & FD_CLOEXEC != 0)
    }
}
