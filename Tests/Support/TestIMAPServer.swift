public import Foundation

/// A private IMAP server on loopback that the watcher tests run against
/// (Dovecot, Cyrus or Courier): implicit TLS on `imapsPort` under the test CA.
public protocol TestIMAPServer: AnyObject, Sendable {
    var kind: IMAPServerKind { get }
    var imapsPort: UInt16 { get }
    /// The CA that signed the server's certificate.
    var caFile: String { get }
    /// Whether `deliverToMaildir` works (a Maildir store an MTA can write, also while the server is stopped).
    var deliversToMaildir: Bool { get }
    /// Drops every IMAP connection of `user` (a NAT timeout or a server-side kill).
    func kick(_ user: String) async throws
    /// Stops the server (blocking: it waits for the processes); `restart()` brings it back on the same ports and mail.
    func stopProcess()
    func restart() async throws
    /// Delivers `message` into `user`'s INBOX the way an MTA writing Maildir does;
    /// `receivedAt` sets the file's time, which Dovecot and Courier report as INTERNALDATE.
    func deliverToMaildir(_ user: String, _ message: [UInt8], receivedAt: Date?) throws
}

extension TestIMAPServer {
    /// Stops the server off the cooperative pool (it waits for the processes to exit).
    public func stopProcessAsync() async {
        await Blocking.run { self.stopProcess() }
    }

    /// Delivers `message` into `user`'s INBOX (Maildir), received now.
    public func deliverToMaildir(_ user: String, _ message: [UInt8]) throws {
        try deliverToMaildir(user, message, receivedAt: nil)
    }
}
