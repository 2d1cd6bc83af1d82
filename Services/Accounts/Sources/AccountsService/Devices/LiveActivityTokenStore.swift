import MailwakePostgres

/// The `live_activity_tokens` table: a device's update token for each of its Live Activities.
struct LiveActivityTokenStore: Sendable {
    let database: PostgresClient

    /// Stores (or replaces) the activity's update token.
    func save(deviceID: String, activityID: String, token: String, now: Int64) async throws {
        try await database.execute("""
            INSERT INTO live_activity_tokens (device_id, activity_id, token, updated_at) VALUES (\(deviceID), \(activityID), \(token),
                \(now))
            ON CONFLICT (device_id, activity_id) DO UPDATE SET token = EXCLUDED.token, updated_at = EXCLUDED.updated_at
            """)
    }

    /// The activity's update token; nil when the device registered none.
    func token(deviceID: String, activityID: String) async throws -> String? {
        try await database.query("""
            SELECT token FROM live_activity_tokens WHERE device_id = \(deviceID) AND activity_id = \(activityID)
            """).first?.decode(String.self, at: 0)
    }
}
