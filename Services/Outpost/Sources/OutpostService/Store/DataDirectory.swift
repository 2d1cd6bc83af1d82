import Foundation

/// Where an outpost keeps its state: `secret.key` and `outpost.db`.
///
/// `--data-dir` or `MAILWAKE_OUTPOST_DATA_DIR`; by default
/// `/var/lib/mailwake-outpost` for root and `$XDG_DATA_HOME/mailwake-outpost`
/// (or `~/.local/share/mailwake-outpost`) for anyone else.
public struct DataDirectory: Sendable, Hashable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The default location for the current user.
    public static func defaultPath(environment: [String: String], isRoot: Bool) -> String {
        if isRoot { return "/var/lib/mailwake-outpost" }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/mailwake-outpost" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/mailwake-outpost"
    }

    /// The default location for this process.
    public static var defaultPath: String {
        defaultPath(environment: ProcessInfo.processInfo.environment, isRoot: getuid() == 0)
    }

    public var secretKeyPath: String { path + "/secret.key" }
    public var databasePath: String { path + "/outpost.db" }

    /// Creates the directory (mode 0700) if it does not exist.
    public func create() throws(OutpostError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw OutpostError(.dataDirectory, "\(path) exists and is not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw OutpostError(.dataDirectory, "cannot create the data directory \(path): \(error.localizedDescription)")
        }
    }

    /// Whether `init` has run here.
    public var isInitialized: Bool {
        FileManager.default.fileExists(atPath: secretKeyPath) || FileManager.default.fileExists(atPath: databasePath)
    }
}
