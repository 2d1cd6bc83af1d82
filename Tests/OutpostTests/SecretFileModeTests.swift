import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// Every secret file the outpost writes is owner-only from the moment it
/// exists: the backup archive, the restored secret.key and database, the TLS
/// key, the pairing/invitation QR PNG (and secret.key and the database of
/// `init`).
///
/// How "from the moment it exists" is observed: the real commands run under
/// umask 022 with a preloaded library that makes every chmod, fchmod and
/// fchmodat fail. A file created under the umask and chmodded afterwards
/// (`FileManager.createFile(…attributes:)`) then keeps its umask mode
/// (0644); only a file created 0600 by `open` itself is 0600. So the inode's
/// mode here is its mode at creation.
@Suite("Outpost: secret files are 0600 from creation", .serialized, .awaitedCleanup)
struct SecretFileModeTests {
    static let preloadSource = """
        #include <errno.h>
        #include <sys/stat.h>
        #include <fcntl.h>
        int chmod(const char *path, mode_t mode) { (void)path; (void)mode; errno = EPERM; return -1; }
        int fchmod(int fd, mode_t mode) { (void)fd; (void)mode; errno = EPERM; return -1; }
        int fchmodat(int dirfd, const char *path, mode_t mode, int flags) { (void)dirfd; (void)path; (void)mode; (void)flags; errno = \
        EPERM; return -1; }
        int lchmod(const char *path, mode_t mode) { (void)path; (void)mode; errno = EPERM; return -1; }
        """

    /// Builds the no-chmod library in `scratch`; returns its path.
    static func buildPreload(_ scratch: ScratchDirectory) async throws -> String {
        let source = try scratch.write("nochmod.c", preloadSource)
        let library = scratch.file("libnochmod.so")
        _ = try await runOffPool { try ChildProcess.run("/usr/bin/cc", ["-shared", "-fPIC", "-O1", "-o", library, source],
                                                        directory: nil) }
        return library
    }

    /// `sh -c 'umask 022; LD_PRELOAD=…; exec …'` with `arguments` and `stdin`; (status, output).
    static func run(_ preload: String, _ executable: String, _ arguments: [String], stdin: String = "") async throws -> (Int32, String) {
        try await MailboxCommandLineTests.run(["-c", "umask 022; export LD_PRELOAD=\"\(preload)\"; exec \"$0\" \"$@\"",
                                               executable] + arguments, stdin: stdin,
                                              executable: "/bin/sh")
    }

    static func mode(_ path: String) -> Int {
        var info = stat()
        guard lstat(path, &info) == 0 else { return -1 }
        return Int(info.st_mode & 0o7777)
    }

    @Test func thePreloadReallyStopsChmod() async throws {
        // The control: without it this test could not fail.
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let preload = try await Self.buildPreload(scratch)
        let file = try scratch.write("plain", "x", mode: 0o644)
        let (status, _) = try await Self.run(preload, "/bin/chmod", ["600", file])
        #expect(status != 0)
        #expect(Self.mode(file) == 0o644)
    }

    @Test func backupRestoreTLSKeyAndQRCodeAreOwnerOnlyFromCreation() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let preload = try await Self.buildPreload(scratch)
        let outpost = OutpostCommandLineTests.executable
        let dir = scratch.file("outpost"), archive = scratch.file("backup.tar"), restored = scratch.file("restored"), png =
            scratch.file("invite.png")

        let (initStatus, initOut) = try await Self.run(preload, outpost, ["init", "--data-dir", dir])
        #expect(initStatus == 0, "\(initOut)")
        #expect(Self.mode(dir + "/secret.key") == 0o600)
        #expect(Self.mode(dir + "/outpost.db") == 0o600)

        let (backupStatus, backupOut) = try await Self.run(preload, outpost, ["backup", "--data-dir", dir, "--out", archive])
        #expect(backupStatus == 0, "\(backupOut)")
        #expect(Self.mode(archive) == 0o600, "the backup archive")

        let (restoreStatus, restoreOut) = try await Self.run(preload, outpost, ["restore", "--data-dir", restored, "--from", archive])
        #expect(restoreStatus == 0, "\(restoreOut)")
        #expect(Self.mode(restored + "/secret.key") == 0o600, "the restored secret.key")
        #expect(Self.mode(restored + "/outpost.db") == 0o600, "the restored database")

        // `invite` creates the TLS key and writes the QR PNG, then waits for the App: stop it once it waits.
        let invite = try TestServerProcess(executable: "/bin/sh", arguments: [
            "-c", "umask 022; export LD_PRELOAD=\"\(preload)\"; exec \"$0\" \"$@\"", outpost,
            "invite", "--data-dir", dir, "--scope", "manage", "--png", png, "--no-qr",
        ], logName: "outpost-invite-modes", pipeStdout: true)
        var transcript: [String] = []
        while true {
            guard let line = await Blocking.run({ invite.readStdoutLine() }) else { break }
            transcript.append(line)
            if line.hasPrefix("Waiting for the App") { break }
        }
        await Blocking.run { invite.stop() }
        #expect(transcript.contains { $0.hasPrefix("Waiting for the App") }, "\(transcript.joined(separator: "\n")) \(invite.logText())")
        #expect(Self.mode(dir + "/tls/outpost-key.pem") == 0o600, "the TLS key")
        #expect(Self.mode(dir + "/tls/outpost-cert.pem") == 0o644, "the certificate is public")
        #expect(Self.mode(png) == 0o600, "the QR PNG carries the invitation's credential")
    }
}
