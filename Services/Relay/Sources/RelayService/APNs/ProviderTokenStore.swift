import MailwakeCrypto
import MailwakePostgres
import MailwakeProtocol

/// The shared provider token in PostgreSQL (`apns_provider_tokens`, one row
/// per team and key) and the lease under which one instance renews it.
///
/// Renewal is compare-and-swap on `generation`: an instance takes the lease
/// only while the row still holds the generation it decided to replace, and
/// publishes (generation + 1) only while it still holds the lease, so two
/// instances never both sign a successor of the same token.
///
/// The JWT is stored sealed (AES-256-GCM) under a key derived with HKDF from
/// the `.p8` key itself, which every instance has and the database does not:
/// a dump, backup or replica of the database holds no usable bearer token
/// (docs/security.md).
struct ProviderTokenStore: Sendable {
    /// What the table holds: its generation (0: no row yet) and the token, when one was signed and opens.
    struct Row: Sendable, Hashable {
        var generation: Int64
        var issued: APNsProviderToken.Issued?
    }

    let database: PostgresClient
    let teamID: String
    let keyID: String
    /// The instance's name: the lease holder.
    let instance: String
    /// Seconds a lease lasts (signing takes milliseconds; a holder that died frees it after this).
    let leaseSeconds: Int64
    private let sealingKey: SymmetricKey

    /// - Parameter signingKey: the `.p8` key; the sealing key is derived from it.
    init(database: PostgresClient, teamID: String, keyID: String, instance: String, leaseSeconds: Int64,
         signingKey: P256.Signing.PrivateKey) throws {
        self.database = database
        self.teamID = teamID
        self.keyID = keyID
        self.instance = instance
        self.leaseSeconds = leaseSeconds
        sealingKey = try HKDF.deriveKey(inputKeyMaterial: signingKey.rawRepresentation,
                                        salt: Array("mailwake-relay apns-provider-token v1".utf8),
                                        info: Array((teamID + "\u{0}" + keyID).utf8), outputByteCount: 32)
    }

    /// The row for this team and key.
    func read() async throws -> Row {
        let rows = try await database.query("""
            SELECT generation, token, issued_at FROM apns_provider_tokens WHERE team_id = \(teamID) AND key_id = \(keyID)
            """)
        guard let row = rows.first else { return Row(generation: 0, issued: nil) }
        let (generation, sealed, issuedAt) = try row.decode((Int64, String, Int64).self)
        guard !sealed.isEmpty, issuedAt != 0,
        let value = open(sealed, issuedAt: issuedAt) else { return Row(generation: generation, issued: nil) }
        return Row(generation: generation, issued: APNsProviderToken.Issued(value: value, issuedAt: issuedAt))
    }

    /// Takes the renewal lease at `now` (seconds) if it is free, expired or
    /// already this instance's, and the row is still at `generation`. True
    /// when this instance may sign now.
    func acquireLease(generation: Int64, now: Int64) async throws -> Bool {
        try await database.execute("""
            INSERT INTO apns_provider_tokens (team_id, key_id, generation, token, issued_at, signed_by, lease_holder, lease_until)
            VALUES (\(teamID), \(keyID), 0, '', 0, '', NULL, 0) ON CONFLICT (team_id, key_id) DO NOTHING
            """)
        let rows = try await database.query("""
            UPDATE apns_provider_tokens SET lease_holder = \(instance), lease_until = \(now + leaseSeconds)
            WHERE team_id = \(teamID) AND key_id = \(keyID) AND generation = \(generation)
              AND (lease_holder IS NULL OR lease_until <= \(now) OR lease_holder = \(instance))
            RETURNING 1
            """)
        return !rows.isEmpty
    }

    /// Stores `issued` sealed as the successor of `generation` and frees the
    /// lease; false when this instance no longer held it (it expired and
    /// another instance took over), in which case the caller must read the table.
    func publish(_ issued: APNsProviderToken.Issued, replacing generation: Int64) async throws -> Bool {
        let sealed = try seal(issued)
        return try await database.execute("""
            UPDATE apns_provider_tokens SET generation = generation + 1, token = \(sealed), issued_at = \(issued.issuedAt),
                signed_by = \(instance),
                lease_holder = NULL, lease_until = 0
            WHERE team_id = \(teamID) AND key_id = \(keyID) AND generation = \(generation) AND lease_holder = \(instance)
            """) == 1
    }

    /// Frees this instance's lease without publishing (signing failed).
    func releaseLease() async throws {
        try await database.execute("""
            UPDATE apns_provider_tokens SET lease_holder = NULL, lease_until = 0
            WHERE team_id = \(teamID) AND key_id = \(keyID) AND lease_holder = \(instance)
            """)
    }

    /// `v1.` + base64url(nonce ‖ ciphertext ‖ tag); the team, key and `iat` are authenticated.
    func seal(_ issued: APNsProviderToken.Issued) throws -> String {
        let nonce = try SymmetricKey(randomByteCount: AESGCM.nonceByteCount).rawBytes
        let sealed = try AESGCM.seal(Array(issued.value.utf8), using: sealingKey, nonce: nonce,
                                     authenticating: additionalData(issuedAt: issued.issuedAt))
        return "v1." + Base64URL.encode(nonce + sealed)
    }

    /// The JWT of a sealed value; nil when it does not open (another key, or tampered with).
    func open(_ text: String, issuedAt: Int64) -> String? {
        guard text.hasPrefix("v1."), let bytes = Base64URL.decode(text.dropFirst(3)),
              bytes.count > AESGCM.nonceByteCount + AESGCM.tagByteCount,
              let plain = try? AESGCM.open(Array(bytes[AESGCM.nonceByteCount...]), using: sealingKey,
                                           nonce: Array(bytes[..<AESGCM.nonceByteCount]),
                                           authenticating: additionalData(issuedAt: issuedAt))
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    private func additionalData(issuedAt: Int64) -> [UInt8] {
        Array((teamID + "\u{0}" + keyID + "\u{0}" + String(issuedAt)).utf8)
    }
}
