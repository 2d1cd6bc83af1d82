import Foundation

/// Which IMAP server a watcher test runs against.
public enum IMAPServerKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case dovecot
    case cyrus
    case courier

    public var description: String { rawValue }

    /// Starts a private server of this kind with `users` (name, password).
    public func start(users: [(String, String)]) async throws -> any TestIMAPServer {
        switch self {
        case .dovecot: try await DovecotServer.start(users: users)
        case .cyrus: try await CyrusServer.start(users: users)
        case .courier: try await CourierServer.start(users: users)
        }
    }

    /// Where scripts/lib/imap-servers.sh unpacks the Cyrus and Courier packages (`imap_servers_unpack`).
    static var unpackedRoot: String { RepositoryPaths.root.appendingPathComponent(".build/imap-servers/root").path }

    /// Fails clearly when the unpacked packages are missing.
    static func requireUnpacked(_ file: String) throws -> String {
        let path = unpackedRoot + "/" + file
        guard FileManager.default.isExecutableFile(atPath: path) || FileManager.default.fileExists(atPath: path) else {
            throw TestHarnessError("\(path) is missing: run scripts/bootstrap (it unpacks Cyrus and Courier with " +
                                   "scripts/lib/imap-servers.sh)")
        }
        return path
    }
}
