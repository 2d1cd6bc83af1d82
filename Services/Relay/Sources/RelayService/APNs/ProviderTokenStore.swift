import MailwakePostgres

/// The shared provider token in PostgreSQL (`apns_provider_tokens`, one row
/// per team and key) and the lease under which one instance renews it.
///
/// Renewal is compare-and-swap on `issued_at`: an instance takes the lease
/// only while the row still holds the token it decided to replace, and
/// publishes only while it still holds the lease, so two instances never
/// both sign a successor of the same token.
struct ProviderTokenStore: Sendable {
    let database: PostgresClient
    let teamID: String
    let keyID: String
    /// The instance's name: the lease holder.
    let instance: String
    /// Seconds a lease lasts (signing takes milliseconds; a holder that died frees it after this).
    let leaseSeconds: Int64

    /// The token in the table, if one was signed.
    func read() async throws -> APNsProviderToken.Issued? {
        let rows = try await database.query("""
            SELECT token, issued_at FROM apns_provider_tokens WHERE team_id = \(teamID) AND key_id = \(keyID)
            """)
        guard let row = rows.first else { return nil }
        let (token, issuedAt) = try row.decode((String, Int64).self)
        return token.isEmpty || issuedAt == 0 ? nil : APNsProviderToken.Issued(value: token, issuedAt: issuedAt)
    }

    /// Takes the renewal lease at `now` (seconds) if it is free, expired or
    /// already this instance's, and the row still holds `replacing` (nil:
    /// none signed yet). True when this instance may sign now.
    func acquireLease(replacing old: APNsProviderToken.Issued?, now: Int64) async throws -> Bool {
        let (token, issuedAt) = (old?.value ?? "", old?.issuedAt ?? 0)
        try await database.execute("""
            INSERT INTO apns_provider_tokens (team_id, key_id, token, issued_at, signed_by, lease_holder, lease_until)
            VALUES (\(teamID), \(keyID), '', 0, '', NULL, 0) ON CONFLICT (team_id, key_id) DO NOTHING
            """)
        let rows = try await database.query("""
            UPDATE apns_provider_tokens SET lease_holder = \(instance), lease_until = \(now + leaseSeconds)
            WHERE team_id = \(teamID) AND key_id = \(keyID) AND token = \(token) AND issued_at = \(issuedAt)
              AND (lease_holder IS NULL OR lease_until <= \(now) OR lease_holder = \(instance))
            RETURNING 1
            """)
        return !rows.isEmpty
    }

    /// Stores `issued` in place of `replacing` and frees the lease; false
    /// when this instance no longer held it (it expired and another instance
    /// took over), in which case the caller must read the table.
    func publish(_ issued: APNsProviderToken.Issued, replacing old: APNsProviderToken.Issued?) async throws -> Bool {
        let (token, issuedAt) = (old?.value ?? "", old?.issuedAt ?? 0)
        return try await database.execute("""
            UPDATE apns_provider_tokens SET token = \(issued.value), issued_at = \(issued.issuedAt), signed_by = \(instance),
                lease_holder = NULL, lease_until = 0
            WHERE team_id = \(teamID) AND key_id = \(keyID) AND token = \(token) AND issued_at = \(issuedAt) AND lease_holder = \(instance)
            """) == 1
    }

    /// Frees this instance's lease without publishing (signing failed).
    func releaseLease() async throws {
        try await database.execute("""
            UPDATE apns_provider_tokens SET lease_holder = NULL, lease_until = 0
            WHERE team_id = \(teamID) AND key_id = \(keyID) AND lease_holder = \(instance)
            """)
    }
}
