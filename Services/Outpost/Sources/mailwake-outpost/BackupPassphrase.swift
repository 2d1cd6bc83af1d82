import Foundation
import MailwakeCore

/// The passphrase of an encrypted backup: the first line of standard input,
/// or, when standard input is a terminal, asked for without echo.
enum BackupPassphrase {
    /// Shortest passphrase `backup --encrypt` accepts.
    static let minimumLength = 10

    /// Reads the passphrase off the cooperative pool; `confirm` asks twice on a
    /// terminal and enforces `minimumLength` (for a new backup).
    static func read(confirm: Bool) async throws -> [UInt8] {
        try await OwnThread.run(name: "mw-passphrase") { try readBlocking(confirm: confirm) }
    }

    private static func readBlocking(confirm: Bool) throws -> [UInt8] {
        let terminal = isatty(0) == 1
        let first = try line(prompt: terminal ? "Backup passphrase: " : nil)
        guard !first.isEmpty else { throw UsageError("expected the backup passphrase on standard input (one line)") }
        if confirm {
            guard first.count >= minimumLength else { throw UsageError("the backup passphrase must be at least \(minimumLength) " +
                                                                       "characters") }
            if terminal, try line(prompt: "Again: ") != first { throw UsageError("the two passphrases differ") }
        }
        return Array(first.utf8)
    }

    /// One line without its line ending; on a terminal, `prompt` on standard error and no echo.
    private static func line(prompt: String?) throws -> String {
        guard let prompt else { return readLine(strippingNewline: true).map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 } ?? "" }
        StandardStreams.writeError(prompt)
        var saved = termios()
        let canHide = tcgetattr(0, &saved) == 0
        if canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(0, TCSANOW, &quiet)
        }
        defer {
            if canHide { _ = tcsetattr(0, TCSANOW, &saved) }
            StandardStreams.writeError("\n")
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
