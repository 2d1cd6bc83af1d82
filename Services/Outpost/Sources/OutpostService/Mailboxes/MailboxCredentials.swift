import Foundation
import MailwakeIMAP
import Synchronization

/// The credentials of one mailbox: the stored password, or an access token
/// printed by the stored OAuth token command (any OAuth helper works). A
/// token is kept until the server refuses it, then the command runs again.
final class MailboxCredentials: Sendable {
    let record: MailboxRecord
    private let secret: String
    private let cachedToken = Mutex<String?>(nil)
    /// Longest a token command may run.
    static let commandTimeout: TimeInterval = 30

    init(record: MailboxRecord, secret: String) {
        self.record = record
        self.secret = secret
    }

    /// Credentials for the next login (runs the token command when needed).
    func current() throws(IMAPError) -> IMAPCredentials {
        switch record.authentication {
        case .password:
            return .password(user: record.username, password: secret)
        case .oauth2:
            if let token = cachedToken.withLock({ $0 }) { return .oauth2(user: record.username, accessToken: token) }
            let token = try Self.runTokenCommand(secret)
            cachedToken.withLock { $0 = token }
            return .oauth2(user: record.username, accessToken: token)
        }
    }

    /// Forgets a token the server refused (expired): the next login asks the command again.
    func refused() { cachedToken.withLock { $0 = nil } }

    /// Runs `command` with /bin/sh; its first line of output is the token.
    static func runTokenCommand(_ command: String) throws(IMAPError) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw IMAPError(.authentication, "cannot run the OAuth token command: \(error)") }
        let deadline = Date().addingTimeInterval(commandTimeout)
        let reader = output.fileHandleForReading
        var data = Data()
        let collected = Mutex<Data>(Data())
        let finished = DispatchSemaphore(value: 0)
        Thread {
            let bytes = reader.readDataToEndOfFile()
            collected.withLock { $0 = bytes.prefix(64 << 10) }
            finished.signal()
        }.start()
        if finished.wait(timeout: .now() + commandTimeout) == .timedOut || Date() > deadline {
            process.terminate()
            throw IMAPError(.authentication, "the OAuth token command did not finish within \(Int(commandTimeout)) s")
        }
        process.waitUntilExit()
        data = collected.withLock { $0 }
        guard process.terminationStatus == 0 else {
            throw IMAPError(.authentication, "the OAuth token command failed (exit status \(process.terminationStatus))")
        }
        let token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else { throw IMAPError(.authentication, "the OAuth token command printed no token") }
        return token
    }
}
