public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A real Courier IMAP 5.0 server for tests, from Debian's packages unpacked
/// by scripts/lib/imap-servers.sh (courier-imap conflicts with
/// dovecot-imapd, so it is not installed). Courier's programs read fixed
/// paths (/etc/courier, /usr/lib/courier-authlib, the authdaemon socket in
/// /run/courier), so they run in a mount namespace of their own
/// (`unshare -m`, private propagation) where overlays put the unpacked
/// packages over /usr and /etc and give /run a private upper layer: nothing
/// outside the namespace sees them (and a PID namespace, see `launch()`). couriertcpd on 127.0.0.1:`imapsPort`
/// runs couriertls, imaplogin (authdaemond with the userdb module) and
/// imapd on Maildirs under a temporary directory; IMAP_ENHANCEDIDLE=1 with
/// FAM (gamin) makes IDLE announce new mail without polling.
public final class CourierServer: TestIMAPServer {
    public let directory: URL
    public let imapsPort: UInt16
    public let certificates: TestCertificates
    private let process = Mutex<TestServerProcess?>(nil)

    public var kind: IMAPServerKind { .courier }
    public var caFile: String { certificates.caCertificate.path }
    public var deliversToMaildir: Bool { true }
    private var launcher: String { directory.appendingPathComponent("launch.sh").path }

    /// Starts Courier with `users` (name, password).
    public static func start(users: [(String, String)]) async throws -> CourierServer {
        let server = try await Blocking.run {
            var attempt = 0
            while true {
                attempt += 1
                let server = try CourierServer(users: users)
                do {
                    try server.launch()
                    return server
                } catch {
                    server.stop(removeFiles: true)
                    guard attempt < 5, "\(error)".contains("did not start") else { throw error }
                }
            }
        }
        AwaitedCleanup.register { await Blocking.run { server.stop(removeFiles: true) } }
        return server
    }

    private init(users: [(String, String)]) throws {
        let root = IMAPServerKind.unpackedRoot
        for file in ["usr/sbin/couriertcpd", "usr/bin/couriertls", "usr/bin/imapd", "usr/lib/courier/courier/imaplogin",
                     "usr/lib/courier/courier-authlib/authdaemond", "usr/sbin/makeuserdb", "usr/lib/courier-authlib/libauthuserdb.so",
                     "usr/libexec/gam_server", "etc/courier/authdaemonrc"] {
            _ = try IMAPServerKind.requireUnpacked(file)
        }
        guard !root.contains(":"),
              !root.contains(",") else { throw TestHarnessError("the repository path holds ':' or ',' (overlayfs options)") }
        guard let mail = getpwnam("mail") else { throw TestHarnessError("the mail user is missing") }
        let (uid, gid) = (mail.pointee.pw_uid, mail.pointee.pw_gid)
        directory = URL(fileURLWithPath: "/tmp/mailwake-courier-\(UUID().uuidString.prefix(8))")
        let d = directory.path
        for sub in ["etc/courier", "etc-work", "run-upper", "run-work", "mail"] {
            try FileManager.default.createDirectory(atPath: "\(d)/\(sub)", withIntermediateDirectories: true)
        }
        chmod(d, 0o755)
        certificates = try TestCertificates.make()
        imapsPort = try PortAllocator.freePort()
        // couriertls reads certificate and key from one file.
        let pem = try Data(contentsOf: certificates.serverCertificate) + Data(contentsOf: certificates.serverKey)
        let pemPath = "\(d)/server.pem"
        guard FileManager.default.createFile(atPath: pemPath, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw TestHarnessError("cannot create \(pemPath)")
        }
        try pem.write(to: URL(fileURLWithPath: pemPath))
        var rc = try String(contentsOfFile: "\(root)/etc/courier/authdaemonrc", encoding: .utf8)
        rc = rc.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("authmodulelist=") ? "authmodulelist=\"authuserdb\"" : String($0) }.joined(separator: "\n")
        try rc.write(toFile: "\(d)/etc/courier/authdaemonrc", atomically: true, encoding: .utf8)
        var userdb = ""
        for (name, password) in users {
            let maildir = "\(d)/mail/\(name)/Maildir"
            for sub in ["", "/cur", "/new", "/tmp"] {
                try FileManager.default.createDirectory(atPath: maildir + sub, withIntermediateDirectories: true)
                chmod(maildir + sub, 0o700)
            }
            for path in ["\(d)/mail/\(name)", maildir, maildir + "/cur", maildir + "/new", maildir + "/tmp"] { chown(path, uid, gid) }
            let hash = try ChildProcess.run("/usr/bin/openssl", ["passwd", "-6", password], directory: nil)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            userdb += "\(name)\tuid=\(uid)|gid=\(gid)|home=\(d)/mail/\(name)|mail=\(maildir)|systempw=\(hash)\n"
        }
        let userdbPath = "\(d)/etc/courier/userdb"
        guard FileManager.default.createFile(atPath: userdbPath, contents: Data(userdb.utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw TestHarnessError("cannot create \(userdbPath)")
        }
        let capability = "IMAP4rev1 UIDPLUS CHILDREN NAMESPACE THREAD=ORDEREDSUBJECT THREAD=REFERENCES SORT QUOTA IDLE"
        let script = """
            #!/bin/sh
            # Runs as init of a PID namespace, in a mount namespace of its own: nothing mounted here is seen outside.
            set -e
            mount --make-rprivate /
            mount -t overlay mailwake-courier-etc -o lowerdir=\(root)/etc:/etc,upperdir=\(d)/etc,workdir=\(d)/etc-work /etc
            mount -t overlay mailwake-courier-usr -o lowerdir=\(root)/usr:/usr /usr
            mount -t overlay mailwake-courier-run -o lowerdir=/run,upperdir=\(d)/run-upper,workdir=\(d)/run-work /run
            mkdir -p /run/courier/authdaemon
            /usr/sbin/makeuserdb
            /usr/lib/courier/courier-authlib/authdaemond &
            AUTH=$!
            TCPD=
            trap 'kill $AUTH $TCPD 2>/dev/null; wait; exit 0' TERM INT
            export TLS_CERTFILE=\(pemPath) TLS_PROTOCOL=TLS1_2+ TLS_VERIFYPEER=NONE
            export IMAP_ENHANCEDIDLE=1 IMAP_IDLE_TIMEOUT=60 IMAP_CAPABILITY="\(capability)" IMAP_CAPABILITY_TLS="\(capability) AUTH=PLAIN"
            export IMAP_TLS=1 IMAP_USELOCKS=1 IMAP_EMPTYTRASH= IMAP_MOVE_EXPUNGE_TO_TRASH=0
            # gamin's socket is abstract (/tmp/fam-mail-<id>), so it is shared across namespaces: a client id of this
            # instance's own keeps imapd from talking to the gam_server of another instance, or of one that is stopping.
            export GAM_CLIENT_ID=mailwake-\(URL(fileURLWithPath: d).lastPathComponent)-$(date +%s%N)
            /usr/sbin/couriertcpd -address=127.0.0.1 -nodnslookup -noidentlookup -maxprocs=200 -maxperip=200 \(imapsPort) \\
                /usr/bin/couriertls -server -tcpd /usr/lib/courier/courier/imaplogin /usr/bin/imapd Maildir &
            TCPD=$!
            wait $TCPD

            """
        try script.write(toFile: launcher, atomically: true, encoding: .utf8)
        chmod(launcher, 0o700)
    }

    /// Starts the launcher in mount and PID namespaces of its own.
    ///
    /// In the PID namespace the launcher's shell is init: it reaps Courier's orphans at once (this machine's init may
    /// leave a killed imapd a zombie for a second or more, and while it is one Courier takes the Maildir lock that
    /// imapd held for taken and waits up to 120 s for it), and when the launcher dies the kernel kills everything in
    /// the namespace, gam_server included, which detaches from the process tree. A new namespace counts PIDs from 1
    /// again, so a lock left by the last instance may name a PID alive in this one: every process of that instance
    /// is dead, so its locks are removed first.
    private func launch() throws {
        let mail = directory.appendingPathComponent("mail")
        for case let path as String in FileManager.default.enumerator(atPath: mail.path) ?? .init()
        where (path as NSString).lastPathComponent == "courier.lock" {
            try? FileManager.default.removeItem(at: mail.appendingPathComponent(path))
        }
        let p = try TestServerProcess(executable: "/usr/bin/unshare",
                                      arguments: ["--mount", "--propagation", "private", "--pid", "--fork", "--kill-child", launcher],
                                      logName: "courier")
        process.withLock { $0 = p }
        guard p.waitForListener(port: imapsPort, timeout: 60) else {
            throw TestHarnessError("courier did not start: \(p.logText().suffix(2000))")
        }
    }

    public func restart() async throws {
        try await ProcessTree.relaunch(stop: { self.stopProcess() }, launch: { try self.launch() })
    }


    /// Stops the launcher and every process it started (their connections drop; the namespaces go with them).
    ///
    /// `unshare --fork` ignores SIGTERM while it waits for its child, so the launcher, init of the PID namespace, is
    /// killed first: the kernel then kills everything else in the namespace, and unshare exits, which `stop` awaits.
    /// (If the launcher is not found, `stop` kills unshare after its grace period, and `--kill-child` kills the
    /// launcher.) Nothing is killed by a PID read earlier: once the namespace is gone its PIDs may be reused.
    public func stopProcess() {
        process.withLock { p in
            if let running = p {
                ProcessTree.signal(SIGKILL, descendantsOf: running.pid, named: "launch.sh")
                running.stop()
            }
            p = nil
        }
    }

    public func stop(removeFiles: Bool = true) {
        stopProcess()
        if removeFiles {
            try? FileManager.default.removeItem(at: directory)
            certificates.remove()
        }
    }

    /// The launcher's output: authdaemond's and couriertcpd's log lines (logins, logouts).
    public func log() -> String { process.withLock { $0?.logText() } ?? "" }

    /// Kills the imapd processes (one per connection; a test server has one user).
    public func kick(_ user: String) async throws {
        guard let pid = process.withLock({ $0?.pid }) else { return }
        ProcessTree.signal(SIGKILL, descendantsOf: pid, named: "imapd")
    }

    /// Writes into the Maildir's tmp/, then renames into new/ (works while Courier is stopped).
    public func deliverToMaildir(_ user: String, _ message: [UInt8], receivedAt: Date?) throws {
        let root = directory.appendingPathComponent("mail/\(user)/Maildir")
        let name = "\(Int(Date().timeIntervalSince1970)).M\(UUID().uuidString.prefix(8)).mailwake-test"
        let temporary = root.appendingPathComponent("tmp/\(name)")
        try Data(message).write(to: temporary)
        if let mail = getpwnam("mail") { chown(temporary.path, mail.pointee.pw_uid, mail.pointee.pw_gid) }
        if let receivedAt { try FileManager.default.setAttributes([.modificationDate: receivedAt], ofItemAtPath: temporary.path) }
        guard rename(temporary.path, root.appendingPathComponent("new/\(name)").path) == 0 else {
            throw TestHarnessError("cannot move the message into new/")
        }
    }

    /// Whether Courier has written the folder's UID database (it keeps a UIDVALIDITY only once it has).
    public func hasUIDDatabase(_ user: String) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("mail/\(user)/Maildir/courierimapuiddb").path)
    }

    /// Deletes the folder's UID database (a rebuilt or restored Maildir): Courier starts a new UIDVALIDITY.
    public func forgetUIDs(_ user: String) throws {
        try FileManager.default.removeItem(at: directory.appendingPathComponent("mail/\(user)/Maildir/courierimapuiddb"))
    }
}
