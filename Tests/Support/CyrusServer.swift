public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A real Cyrus IMAP 3.6 server for tests: its own imapd.conf and
/// cyrus.conf, spool, SASL database (sasldb, PLAIN and LOGIN) and TLS
/// certificate under a temporary directory; implicit TLS on `imapsPort`,
/// plain IMAP on `imapPort`, 127.0.0.1 only. `idled` runs beside the IMAP
/// service so that IDLE announces new mail at once. The master process
/// (Debian's cyrus-common) runs as root and its services as the `cyrus`
/// user; imapd and idled come from the cyrus-imapd package unpacked by
/// scripts/lib/imap-servers.sh (the package itself conflicts with
/// dovecot-imapd). A user's INBOX is created at its first login.
public final class CyrusServer: TestIMAPServer {
    public let directory: URL
    public let imapPort: UInt16
    public let imapsPort: UInt16
    public let certificates: TestCertificates
    private let process = Mutex<TestServerProcess?>(nil)
    static let master = "/usr/lib/cyrus/bin/master"
    /// The SASL realm of the users (`servername`).
    static let realm = "mailwake-test"

    public var kind: IMAPServerKind { .cyrus }
    public var caFile: String { certificates.caCertificate.path }
    public var deliversToMaildir: Bool { false }
    private var imapdConf: String { directory.appendingPathComponent("imapd.conf").path }
    private var cyrusConf: String { directory.appendingPathComponent("cyrus.conf").path }

    /// Starts Cyrus with `users` (name, password).
    public static func start(users: [(String, String)]) async throws -> CyrusServer {
        let server = try await Blocking.run {
            var attempt = 0
            while true {
                attempt += 1
                let server = try CyrusServer()
                do {
                    for (name, password) in users { try server.addUser(name, password: password) }
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

    private init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.master) else {
            throw TestHarnessError("\(Self.master) is missing: run scripts/bootstrap (package cyrus-common)")
        }
        let bin = try IMAPServerKind.requireUnpacked("usr/lib/cyrus/bin/imapd")
        let idled = try IMAPServerKind.requireUnpacked("usr/lib/cyrus/bin/idled")
        guard let cyrus = getpwnam("cyrus") else { throw TestHarnessError("the cyrus user is missing: install cyrus-common") }
        let (uid, gid) = (cyrus.pointee.pw_uid, cyrus.pointee.pw_gid)
        directory = URL(fileURLWithPath: "/tmp/mailwake-cyrus-\(UUID().uuidString.prefix(8))")
        for sub in ["config/socket", "spool", "lock", "proc"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        certificates = try TestCertificates.make()
        imapPort = try PortAllocator.freePort()
        imapsPort = try PortAllocator.freePort()
        // imapd reads the key as the cyrus user: a copy of its own.
        let cert = directory.appendingPathComponent("cert.pem"), key = directory.appendingPathComponent("key.pem")
        try FileManager.default.copyItem(at: certificates.serverCertificate, to: cert)
        try FileManager.default.copyItem(at: certificates.serverKey, to: key)
        chmod(key.path, 0o600)
        let d = directory.path
        try """
            configdirectory: \(d)/config
            partition-default: \(d)/spool
            defaultpartition: default
            servername: \(Self.realm)
            admins: cyrus
            unixhierarchysep: yes
            altnamespace: yes
            sasl_pwcheck_method: auxprop
            sasl_auxprop_plugin: sasldb
            sasl_sasldb_path: \(d)/sasldb2
            sasl_mech_list: PLAIN LOGIN
            allowplaintext: yes
            autocreate_quota: 0
            tls_server_cert: \(cert.path)
            tls_server_key: \(key.path)
            idlesocket: \(d)/config/socket/idle
            notifysocket: \(d)/config/socket/notify
            lmtpsocket: \(d)/config/socket/lmtp
            mboxname_lockpath: \(d)/lock
            proc_path: \(d)/proc
            syslog_prefix: mailwake-cyrus-\(directory.lastPathComponent)

            """.write(toFile: imapdConf, atomically: true, encoding: .utf8)
        try """
            START {
              recover cmd="/usr/lib/cyrus/bin/ctl_cyrusdb -C \(imapdConf) -r"
            }
            SERVICES {
              imap cmd="\(bin) -C \(imapdConf)" listen="127.0.0.1:\(imapPort)" prefork=0 maxchild=200
              imaps cmd="\(bin) -s -C \(imapdConf)" listen="127.0.0.1:\(imapsPort)" prefork=0 maxchild=200
            }
            DAEMON {
              idled cmd="\(idled) -C \(imapdConf)"
            }

            """.write(toFile: cyrusConf, atomically: true, encoding: .utf8)
        chmod(d, 0o755)
        for path in ([d] + ["config", "config/socket", "spool", "lock", "proc", "cert.pem", "key.pem", "imapd.conf",
                            "cyrus.conf"].map { "\(d)/\($0)" }) {
            chown(path, uid, gid)
        }
    }

    /// Adds a user to the SASL database.
    public func addUser(_ name: String, password: String) throws {
        let db = directory.appendingPathComponent("sasldb2").path
        guard !password.contains("'"),
              !name.contains("'") else { throw TestHarnessError("a Cyrus test user's name or password holds a quote") }
        try ChildProcess.run("/bin/sh",
                             ["-c", "printf %s '\(password)' | /usr/sbin/saslpasswd2 -p -c -f '\(db)' -u \(Self.realm) '\(name)'"],
                             directory: nil)
        if let cyrus = getpwnam("cyrus") { chown(db, cyrus.pointee.pw_uid, cyrus.pointee.pw_gid) }
        chmod(db, 0o600)
    }

    private func launch() throws {
        let p = try TestServerProcess(executable: Self.master, arguments: ["-D", "-C", imapdConf, "-M", cyrusConf,
                                                                          "-p", directory.appendingPathComponent("master.pid").path],
                                                                          logName: "cyrus")
        process.withLock { $0 = p }
        guard p.waitForListener(port: imapsPort, timeout: 60), p.waitForListener(port: imapPort, timeout: 30) else {
            throw TestHarnessError("cyrus did not start (its log goes to syslog): \(p.logText().suffix(2000))")
        }
        // IDLE is immediate only once idled listens.
        // imapd binds its own socket beside it: {configdirectory}/socket/idle.<pid>.
        let idle = directory.appendingPathComponent("config/socket/idle").path
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: idle) {
            guard Date() < deadline else { throw TestHarnessError("cyrus started without idled (no \(idle))") }
            usleep(20_000)
        }
    }

    public func restart() async throws {
        try await ProcessTree.relaunch(stop: { self.stopProcess() }, launch: { try self.launch() })
    }


    /// Stops the master and every process it started (their connections drop).
    public func stopProcess() {
        process.withLock { p in
            if let running = p { ProcessTree.stopWithDescendants(running) }
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

    /// Kills the imapd processes (Cyrus serves one connection per process; a test server has one user).
    public func kick(_ user: String) async throws {
        guard let pid = process.withLock({ $0?.pid }) else { return }
        ProcessTree.signal(SIGKILL, descendantsOf: pid, named: "imapd")
    }

    public func deliverToMaildir(_ user: String, _ message: [UInt8], receivedAt: Date?) throws {
        throw TestHarnessError("Cyrus keeps its own spool: deliver over IMAP or LMTP")
    }
}
