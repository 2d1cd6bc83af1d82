/// A process-local `NonceStore` with a bounded size.
public actor InMemoryNonceStore: NonceStore {
    private struct Entry: Hashable {
        let keyID: String
        let nonce: [UInt8]
    }

    private var entries: [Entry: Int64] = [:]
    private let capacity: Int

    /// - Parameter capacity: the most nonces kept; when full, expired ones are
    ///   dropped first and new requests are refused if none expired.
    public init(capacity: Int = 1_000_000) { self.capacity = capacity }

    public func insertIfAbsent(keyID: String, nonce: [UInt8], expiresAt: Int64, now: Int64) async throws -> Bool {
        let entry = Entry(keyID: keyID, nonce: nonce)
        if let expiry = entries[entry], expiry > now { return false }
        if entries.count >= capacity {
            entries = entries.filter { $0.value > now }
            guard entries.count < capacity else { throw NonceStoreFullError() }
        }
        entries[entry] = expiresAt
        return true
    }

    /// The number of nonces held.
    public var count: Int { entries.count }
}

/// The in-memory nonce store is full of unexpired nonces.
public struct NonceStoreFullError: Error, Sendable {}
