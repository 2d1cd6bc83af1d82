import Synchronization

/// The newest OAuth grant of each mailbox in this process: every watcher
/// thread and body fetch of a mailbox shares one access token, and a
/// refresh (or a rotated refresh token) is seen by all of them. Refreshes of
/// one mailbox are serialized by its lock.
final class OAuthGrantCache: Sendable {
    static let shared = OAuthGrantCache()

    private let grants = Mutex<[Int64: OAuthGrant]>([:])
    private let locks = Mutex<[Int64: RefreshLock]>([:])

    func grant(_ mailboxID: Int64) -> OAuthGrant? { grants.withLock { $0[mailboxID] } }

    func set(_ grant: OAuthGrant, for mailboxID: Int64) { grants.withLock { $0[mailboxID] = grant } }

    /// Marks the access token as refused: the next login refreshes it.
    func expire(_ mailboxID: Int64) {
        grants.withLock { g in
            g[mailboxID]?.expiresAt = 0
        }
    }

    /// The lock that serializes refreshes of `mailboxID`.
    func refreshLock(_ mailboxID: Int64) -> RefreshLock {
        locks.withLock { l in
            if let lock = l[mailboxID] { return lock }
            let lock = RefreshLock()
            l[mailboxID] = lock
            return lock
        }
    }

    /// A lock held across a refresh (on a watcher's own thread, never a pool thread).
    final class RefreshLock: Sendable {
        let mutex = Mutex<Void>(())
    }
}
