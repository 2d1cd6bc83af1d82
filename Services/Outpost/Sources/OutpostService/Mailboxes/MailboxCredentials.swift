import Foundation
import MailwakeCore
import MailwakeIMAP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The credentials of one mailbox: the stored password; an access token from
/// the outpost's own OAuth 2 grant (refreshed before it expires and when the
/// server refuses it); or one printed by the stored OAuth token command (any
/// OAuth helper works), kept until the server refuses it.
final class MailboxCredentials: Sendable {
    let record: MailboxRecord
    private let secret: String
    private let store: OutpostStore?
    private let clock: @Sendable () -> Int64
    private let cachedToken = Mutex<String?>(nil)
    /// Longest a token command may run.
    static let commandTimeout: TimeInterval = 30

    /// - Parameter store: where a refreshed grant (rotated refresh token, new access token) is sealed again; nil keeps it in memory.
    init(record: MailboxRecord, secret: String, store: OutpostStore? = nil, clock: @escaping @Sendable () -> Int64 = WallClock.seconds) {
        self.record = record
        self.secret = secret
        self.store = store
        self.clock = clock
    }

    /// Whether the mailbox logs in with the outpost's own OAuth 2 grant.
    var usesBuiltInOAuth: Bool { record.authentication == .oauth2 && OAuthGrant.isGrant(secret) }

    /// Credentials for the next login (refreshes the access token or runs the token command when needed).
    ///
    /// Blocks the calling thread (a watcher's or probe's own thread, never a pool thread).
    func current() throws(IMAPError) -> IMAPCredentials {
        switch record.authentication {
        case .password:
            return .password(user: record.username, password: secret)
        case .oauth2:
            if OAuthGrant.isGrant(secret) { return .oauth2(user: record.username, accessToken: try grantToken()) }
            if let token = cachedToken.withLock({ $0 }) { return .oauth2(user: record.username, accessToken: token) }
            let token = try Self.runTokenCommand(secret)
            cachedToken.withLock { $0 = token }
            return .oauth2(user: record.username, accessToken: token)
        }
    }

    /// Forgets a token the server refused (expired, revoked): the next login refreshes it or asks the command again.
    func refused() {
        cachedToken.withLock { $0 = nil }
        if let cacheKey { OAuthGrantCache.shared.expire(cacheKey) }
        refusedLocally.withLock { $0 = true }
    }
    private let refusedLocally = Mutex(false)

    /// Where this mailbox's grant is shared in the process: its data directory and id (nil without a store: `mailbox add`'s probe).
    private var cacheKey: String? {
        guard record.id != 0, let store else { return nil }
        return "\(store.directory.path)#\(record.id)"
    }

    // MARK: built-in OAuth 2

    private func grantToken() throws(IMAPError) -> String {
        let cache = OAuthGrantCache.shared
        let key = cacheKey
        let cached = key.flatMap(cache.grant)
        guard var grant = cached ?? OAuthGrant.decode(secret) else {
            throw IMAPError(.authentication,
                            "the stored OAuth 2 grant of '\(record.label)' cannot be read: add the mailbox again with --oauth")
        }
        if key == nil, refusedLocally.withLock({ $0 }) { grant.expiresAt = 0 }
        if grant.accessTokenIsFresh(now: clock()), let token = grant.accessToken {
            if let key, cached == nil { cache.set(grant, for: key) }
            return token
        }
        let lock = key.map(cache.refreshLock) ?? OAuthGrantCache.RefreshLock()
        return try lock.mutex.withLock { _ throws(IMAPError) -> String in
            // Another thread may have refreshed while this one waited.
            if let key, let newer = cache.grant(key), newer.accessTokenIsFresh(now: clock()),
               let token = newer.accessToken { return token }
            let refreshed = try refresh(grant)
            if key == nil { refusedLocally.withLock { $0 = false } }
            return refreshed
        }
    }

    /// Exchanges the refresh token (RFC 6749 §6); `invalid_grant` is a revoked or expired grant: a clear authentication failure.
    private func refresh(_ old: OAuthGrant) throws(IMAPError) -> String {
        var grant = old
        let client = OAuthClient(endpoints: grant.endpoints)
        let refreshToken = grant.refreshToken
        let response: OAuthTokenResponse
        do {
            response = try BlockingBridge.wait { try await client.refresh(refreshToken) }
        } catch let error as OAuthError where error.isInvalidGrant {
            throw IMAPError(.authentication,
                            "the OAuth 2 authorization of '\(record.label)' was revoked or has expired (invalid_grant at " +
                            "\(OAuthClient.origin(grant.endpoints.tokenURL))): "
                                + "remove the mailbox and add it again with --oauth")
        } catch {
            throw IMAPError(.authentication, "cannot refresh the OAuth 2 access token of '\(record.label)': \(error)")
        }
        grant.update(with: response, now: clock())
        if let key = cacheKey {
            OAuthGrantCache.shared.set(grant, for: key)
            if let store {
                let id = record.id, stored = grant.encoded()
                _ = try? BlockingBridge.wait { try await store.updateMailbox(id, secret: stored) }
            }
        }
        return response.accessToken
    }

    // MARK: token command

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
        let token = String(decoding: data,
                           as: UTF8.self).split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else { throw IMAPError(.authentication, "the OAuth token command printed no token") }
        return token
    }
}
