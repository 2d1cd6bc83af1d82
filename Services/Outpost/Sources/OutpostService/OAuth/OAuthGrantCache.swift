import Synchronization

/// The newest OAuth grant of each mailbox in this process (keyed by data directory and mailbox id): every watcher
/// thread and body fetch of a mailbox shares one access token, and a
/// refresh (or a rotated refresh token) is seen by all of them. Refreshes of
/// one mailbox are serialized by its lock.
final class OAuthGrantCache: Sendable {
    static let shared = OAuthGrantCache()

    private let grants = Mutex<[String: OAuthGrant]>([:])
    private let locks = Mutex<[String: RefreshLock]>([:])

    func grant(_ key: String) -> OAuthGrant? { grants.withLock { $0[key] } }

    func set(_ grant: OAuthGrant, for key: String) { grants.withLock { $0[key] = grant } }

    /// Marks the access token as refused: the next login refreshes it.
    func expire(_ key: String) {
        grants.withLock { g in
            g[key]?.expiresAt = 0
        }
    }

    /// The lock that serializes refreshes of `key`.
    func refreshLock(_ key: String) -> RefreshLock {
        locks.withLock { l in
            if let lock = l[key] { return lock }
            let lock = RefreshLock()
            l[key] = lock
            return lock
        }
    }

    /// A lock held across a refresh (on a watcher's own thread, never a pool thread).
    final class RefreshLock: Sendable {
        let mutex = Mutex<Void>(())
    }
}
