public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A real Dovecot IMAP server for tests: its own configuration, maildirs,
/// passwd file, TLS certificate (from a throwaway CA) and ports under a
/// temporary directory. IMAP with STARTTLS on `imapPort`, implicit TLS on
/// `imapsPort`. Runs as root (mail owned by the `mail` user) or as the
/// current user. It listens on 127.0.0.1 and 127.0.0.2 (a loopback address
/// its certificate does not name). Passwords double as XOAUTH2 tokens: Dovecot checks an
/// XOAUTH2 token against the passdb like a password.
public final class DovecotServer: Sendable {
    public let directory: URL
    public let imapPort: UInt16
    public let imapsPort: UInt16
    public let certificates: TestCertificates
    /// Whether IMAP IDLE is advertised.
    public let advertisesIdle: Bool
    private let process = Mutex<TestServerProcess?>(nil)

    public var caFile: String { certificates.caCertificate.path }
    public var configFile: String { directory.appendingPathComponent("dovecot.conf").path }
    private var passwdFile: String { directory.appendingPathComponent("passwd").path }

    /// Starts Dovecot with `users` (name, password).
    ///
    /// - Parameters:
    ///   - advertisesIdle: false gives a server whose capabilities lack IDLE.
    ///   - oauth2IntrospectionURL: XOAUTH2 and OAUTHBEARER tokens are checked by Dovecot's `passdb oauth2`
    ///     at this RFC 7662 introspection endpoint (`introspection_mode = post`) instead of against the passwords.
    public static func start(users: [(String, String)], advertisesIdle: Bool = true,
                             oauth2IntrospectionURL: String? = nil) async throws -> DovecotServer {
        let server = try await Blocking.run {
            // A port free a moment ago may be taken by another test's server before Dovecot
            // binds it: try again with new ports.
            var attempt = 0
            while true {
                attempt += 1
                let server = try DovecotServer(advertisesIdle: advertisesIdle, oauth2IntrospectionURL: oauth2IntrospectionURL)
                do {
                    for (name, password) in users { try server.addUser(name, password: password) }
                    try server.launch()
                    return server
                } catch {
                    server.stop(removeFiles: true)
                    guard attempt < 5, "\(error)".contains("Address already in use") else { throw error }
                }
            }
        }
        AwaitedCleanup.register { await Blocking.run { server.stop(removeFiles: true) } }
        return server
    }

    private init(advertisesIdle: Bool, oauth2IntrospectionURL: String?) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/dovecot") else {
            throw TestHarnessError("/usr/sbin/dovecot is missing: run scripts/bootstrap (package dovecot-imapd)")
        }
        self.advertisesIdle = advertisesIdle
        directory = URL(fileURLWithPath: "/tmp/mailwake-dovecot-\(UUID().uuidString.prefix(8))")
        for sub in ["run", "state", "mail"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        chmod(directory.path, 0o755)
        certificates = try TestCertificates.make()
        chmod(certificates.directory.path, 0o755)
        imapPort = try PortAllocator.freePort()
        imapsPort = try PortAllocator.freePort()
        let (uid, gid, internalUser) = try Self.mailOwner()
        chown(directory.appendingPathComponent("mail").path, uid, gid)
        _ = FileManager.default.createFile(atPath: passwdFile, contents: Data())
        var config = """
            base_dir = \(directory.path)/run
            state_dir = \(directory.path)/state
            instance_name = \(instanceName)
            log_path = \(directory.path)/dovecot.log
            verbose_proctitle = yes
            protocols = imap
            listen = 127.0.0.1, 127.0.0.2
            ssl = yes
            ssl_cert = <\(certificates.serverCertificate.path)
            ssl_key = <\(certificates.serverKey.path)
            ssl_min_protocol = TLSv1.2
            disable_plaintext_auth = no
            auth_mechanisms = plain login xoauth2\(oauth2IntrospectionURL == nil ? "" : " oauthbearer")
            first_valid_uid = \(uid)
            last_valid_uid = \(uid)
            first_valid_gid = \(gid)
            mail_location = maildir:\(directory.path)/mail/%u
            default_internal_user = \(internalUser.internal)
            default_login_user = \(internalUser.login)
            \(oauth2IntrospectionURL == nil ? "" : """
            auth_verbose = yes
            passdb {
              driver = oauth2
              mechanisms = xoauth2 oauthbearer
              args = \(directory.path)/dovecot-oauth2.conf.ext
            }
            """)
            passdb {
              driver = passwd-file
              args = scheme=PLAIN username_format=%u \(passwdFile)
              \(oauth2IntrospectionURL == nil ? "" : "mechanisms = plain login")
            }
            userdb {
              driver = static
              args = uid=\(uid) gid=\(gid) home=\(directory.path)/mail/%u
            }
            service imap-login {
              chroot =
              inet_listener imap {
                port = \(imapPort)
              }
              inet_listener imaps {
                port = \(imapsPort)
                ssl = yes
              }
            }
            service anvil {
              chroot =
              client_limit = 5000
            }
            service imap {
              process_limit = 1024
            }
            service imap-login {
              process_min_avail = 1
            }
            default_client_limit = 2048
            default_process_limit = 1024

            """
        if !advertisesIdle {
            config += "imap_capability = IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE LITERAL+ UIDPLUS NAMESPACE CHILDREN\n"
        }
        try config.write(toFile: configFile, atomically: true, encoding: .utf8)
        if let oauth2IntrospectionURL {
            try """
                introspection_mode = post
                introspection_url = \(oauth2IntrospectionURL)
                force_introspection = yes
                username_attribute = username
                active_attribute = active
                active_value = true

                """.write(toFile: directory.appendingPathComponent("dovecot-oauth2.conf.ext").path, atomically: true, encoding: .utf8)
        }
    }

    /// Adds a user (Dovecot re-reads the passwd file when it changes).
    public func addUser(_ name: String, password: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: passwdFile))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\(name):{PLAIN}\(password)\n".utf8))
    }

    /// Replaces a user's password.
    public func setPassword(_ name: String, _ password: String) throws {
        let text = (try? String(contentsOfFile: passwdFile, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").map { $0.hasPrefix("\(name):") ? "\(name):{PLAIN}\(password)" : String($0) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: passwdFile, atomically: false, encoding: .utf8)
    }

    private func launch() throws {
        let p = try TestServerProcess(executable: "/usr/sbin/dovecot", arguments: ["-F", "-c", configFile], logName: "dovecot")
        process.withLock { $0 = p }
        guard p.waitForListener(port: imapsPort, timeout: 60), p.waitForListener(port: imapPort, timeout: 30) else {
            throw TestHarnessError("dovecot did not start: \(p.logText().suffix(2000)) \(log().suffix(2000))")
        }
    }

    /// Stops and starts Dovecot again on the same ports and mail.
    public func restart() async throws {
        try await ProcessTree.relaunch(stop: { self.stopProcess() }, launch: { try self.launch() },
                                       retryIf: { "\($0)".contains("Address already in use") })
    }


    /// Stops the server (its IMAP connections drop); `restart()` brings it back.
    ///
    /// The master is stopped with SIGTERM; its children are then killed by
    /// name: a `dovecot -F` master stopped this way can leave its login and
    /// imap processes running (spinning, connections open), which is not
    /// what a restart looks like to a client.
    public func stopProcess() {
        process.withLock { p in
            p?.stop()
            p = nil
        }
        _ = try? ChildProcess.run("/usr/bin/pkill", ["-KILL", "-f", "dovecot-\(instanceName)/"], directory: nil)
    }

    var instanceName: String { "mailwake-test-\(directory.lastPathComponent)" }

    /// Stops the server and, when `removeFiles`, deletes its files.
    public func stop(removeFiles: Bool = true) {
        stopProcess()
        if removeFiles {
            try? FileManager.default.removeItem(at: directory)
            certificates.remove()
        }
    }

    /// Dovecot's own log (logins, disconnects, errors).
    public func log() -> String {
        (try? String(contentsOfFile: directory.appendingPathComponent("dovecot.log").path, encoding: .utf8)) ?? ""
    }

    /// Runs `doveadm -c <config> arguments…`.
    @discardableResult
    public func doveadm(_ arguments: [String]) async throws -> String {
        let config = configFile
        return try await Blocking.run { try ChildProcess.run("/usr/bin/doveadm", ["-c", config] + arguments, directory: nil) }
    }

    /// Delivers `message` to `user`'s INBOX the way an MTA writing Maildir
    /// does (tmp/, then a rename into new/); works while Dovecot is stopped.
    public func deliverToMaildir(_ user: String, _ message: [UInt8]) throws {
        try deliverToMaildir(user, message, receivedAt: nil)
    }

    /// Delivers like `deliverToMaildir`, the file's time (Dovecot's INTERNALDATE) set to `receivedAt`.
    public func deliverToMaildir(_ user: String, _ message: [UInt8], receivedAt: Date?) throws {
        let root = directory.appendingPathComponent("mail/\(user)")
        let name = "\(Int(Date().timeIntervalSince1970)).M\(UUID().uuidString.prefix(8)).mailwake-test"
        for sub in ["tmp", "new", "cur"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let temporary = root.appendingPathComponent("tmp/\(name)")
        try Data(message).write(to: temporary)
        let (uid, gid, _) = try Self.mailOwner()
        for path in [root.path, root.appendingPathComponent("tmp").path, root.appendingPathComponent("new").path,
                     root.appendingPathComponent("cur").path, temporary.path] { chown(path, uid, gid) }
        if let receivedAt { try FileManager.default.setAttributes([.modificationDate: receivedAt], ofItemAtPath: temporary.path) }
        guard rename(temporary.path, root.appendingPathComponent("new/\(name)").path) == 0 else {
            throw TestHarnessError("cannot move the message into new/")
        }
    }

    /// Drops every IMAP connection of `user` (what a NAT timeout or a server-side kill looks like).
    public func kick(_ user: String) async throws {
        _ = try? await doveadm(["kick", user])
    }

    /// Sets the UIDVALIDITY of `folder` (a restored or rebuilt mailbox).
    public func setUIDValidity(_ user: String, folder: String = "INBOX", _ value: UInt32) async throws {
        try await doveadm(["mailbox", "update", "--uid-validity", String(value), "-u", user, folder])
    }

    /// Creates `folder` for `user`.
    public func createFolder(_ user: String, _ folder: String) async throws {
        try await doveadm(["mailbox", "create", "-u", user, folder])
    }

    /// The uid and gid owning the mail, and the users Dovecot's own processes run as.
    private static func mailOwner() throws -> (uid_t, gid_t, (internal: String, login: String)) {
        if getuid() == 0 {
            guard let mail = getpwnam("mail"), getpwnam("dovecot") != nil, getpwnam("dovenull") != nil else {
                throw TestHarnessError("the users mail, dovecot and dovenull are missing: install dovecot-imapd")
            }
            return (mail.pointee.pw_uid, mail.pointee.pw_gid, ("dovecot", "dovenull"))
        }
        guard let me = getpwuid(getuid()) else { throw TestHarnessError("cannot look up the current user") }
        let name = String(cString: me.pointee.pw_name)
        return (me.pointee.pw_uid, me.pointee.pw_gid, (name, name))
    }
}
