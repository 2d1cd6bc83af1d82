import MailwakePostgres

/// A transaction on a session of its own that has taken locks and keeps them until released: what a stuck client or
/// an operator's long statement does to the relay's statements.
struct HeldLock {
    private let holder: Task<Void, any Error>
    private let releaser: AsyncStream<Void>.Continuation

    /// Runs `statement` in a new transaction on `database`; returns once it ran, its locks held.
    static func take(_ statement: PostgresQuery, on database: PostgresClient) async throws -> HeldLock {
        let (locked, lockTaken) = AsyncStream<Void>.makeStream()
        let (released, releaser) = AsyncStream<Void>.makeStream()
        let holder = Task {
            defer { lockTaken.finish() }
            try await database.withTransaction { tx async throws in
                try await tx.execute(statement)
                lockTaken.yield()
                for await _ in released { break }
            }
        }
        var taken = false
        for await _ in locked {
            taken = true
            break
        }
        guard taken else {
            try await holder.value
            throw PostgresError(.query, "the lock's statement did not run")
        }
        return HeldLock(holder: holder, releaser: releaser)
    }

    /// Runs `body` while the locks are held, then releases them, also when `body` throws.
    func whileHeld<T>(_ body: () async throws -> T) async throws -> T {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        try await release()
        return try result.get()
    }

    /// Ends the transaction and waits until it has.
    func release() async throws {
        releaser.finish()
        try await holder.value
    }
}
