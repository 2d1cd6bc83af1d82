import MailwakePostgres

/// The `device_sessions` table: the sessions a device's registrations opened.
struct DeviceSessionStore: Sendable {
    let database: PostgresClient

    /// What touching a session found.
    enum Touch: Sendable {
        /// Active, and now marked seen.
        case active
        case revoked
        case unknown
    }

    /// Inserts `session` on the caller's transaction.
    static func insert(_ session: NewSession, deviceID: String, now: Int64, on tx: PostgresConnection) async throws {
        try await tx.execute("""
            INSERT INTO device_sessions (session_id, device_id, created_at, last_seen_at, app_version, client_address)
            VALUES (\(session.sessionID), \(deviceID), \(now), \(now), \(session.appVersion), \(session.clientAddress))
            """)
    }

    /// The ids of the device's sessions not revoked.
    func activeIDs(of deviceID: String) async throws -> [String] {
        try await database.query("""
            SELECT session_id FROM device_sessions WHERE device_id = \(deviceID) AND revoked_at IS NULL
            """).map { try $0.decode(String.self, at: 0) }
    }

    /// Marks an active session seen now from `clientAddress`.
    func touch(_ sessionID: String, deviceID: String, clientAddress: String, now: Int64) async throws -> Touch {
        let rows = try await database.query("""
            UPDATE device_sessions SET last_seen_at = \(now), client_address = \(clientAddress)
            WHERE session_id = \(sessionID) AND device_id = \(deviceID) AND revoked_at IS NULL RETURNING 1
            """)
        guard rows.count == 0 else { return .active }
        let known = try await database.query("SELECT 1 FROM device_sessions WHERE session_id = \(sessionID) AND device_id = \(deviceID)")
        return known.count == 0 ? .unknown : .revoked
    }

    /// The device's 100 most recently seen sessions, revoked ones included.
    func list(_ deviceID: String) async throws -> [SessionSummary] {
        try await database.query("""
            SELECT session_id, created_at, last_seen_at, app_version, client_address, revoked_at FROM device_sessions
            WHERE device_id = \(deviceID) ORDER BY last_seen_at DESC LIMIT 100
            """).map { row in
            let (id, created, seen, version, address, revoked) = try row.decode((String, Int64, Int64, String, String, Int64?).self)
            return SessionSummary(sessionID: id, createdAt: created, lastSeenAt: seen, appVersion: version, clientAddress: address,
                                  revokedAt: revoked)
        }
    }

    /// Revokes an active session of the device; false when there is no such active session.
    func revoke(_ sessionID: String, deviceID: String, now: Int64) async throws -> Bool {
        try await database.execute("""
            UPDATE device_sessions SET revoked_at = \(now) WHERE device_id = \(deviceID) AND session_id = \(sessionID)
                AND revoked_at IS NULL
            """) == 1
    }
}
