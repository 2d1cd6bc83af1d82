import Foundation
import MailwakeCore
import MailwakeIMAP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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
    ///
    /// Blocks the calling thread (a watcher's or probe's own thread, never a
    /// pool thread) for at most `commandTimeout`. The command gets descriptors
    /// 0-2 only: stdin and stderr /dev/null, stdout a pipe read here.
    static func runTokenCommand(_ command: String) throws(IMAPError) -> String {
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess.spawn("/bin/sh", ["-c", command], stdin: .null, stdout: .pipe, stderr: .null)
        } catch {
            throw IMAPError(.authentication, "cannot run the OAuth token command: \(error)")
        }
        let pipe = process.stdoutPipe
        defer { close(pipe) }
        let deadline = ContinuousClock.now + .seconds(commandTimeout)
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        reading: while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                process.signal(SIGKILL)
                process.waitForExit()
                throw IMAPError(.authentication, "the OAuth token command did not finish within \(Int(commandTimeout)) s")
            }
            var ready = pollfd(fd: pipe, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 1000))
            switch poll(&ready, 1, milliseconds) {
            case 0:
                continue reading
            case let r where r < 0:
                if errno == EINTR { continue reading }
                break reading
            default:
                let n = chunk.withUnsafeMutableBytes { read(pipe, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue reading }
                if n <= 0 { break reading }
                if data.count < 64 << 10 { data.append(contentsOf: chunk[0..<min(n, (64 << 10) - data.count)]) }
            }
        }
        let status = process.waitForExit()
        guard status == 0 else {
            throw IMAPError(.authentication, "the OAuth token command failed (exit status \(status))")
        }
        let token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else { throw IMAPError(.authentication, "the OAuth token command printed no token") }
        return token
    }
}
