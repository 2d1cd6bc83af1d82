/// Remembers request nonces within the replay window (PROTOCOL.md §8).
///
/// The store must be shared by all instances of a service; the relay and
/// accounts use a PostgreSQL-backed store, tools and tests the in-memory one.
public protocol NonceStore: Sendable {
    /// Records `(keyID, nonce)` until `expiresAt` and answers `true`, or
    /// answers `false` when the pair is already recorded and unexpired.
    func insertIfAbsent(keyID: String, nonce: [UInt8], expiresAt: Int64, now: Int64) async throws -> Bool
}
