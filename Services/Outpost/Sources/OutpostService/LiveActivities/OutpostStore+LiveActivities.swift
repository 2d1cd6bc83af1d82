import MailwakeSQLite

extension OutpostStore {
    /// Activities whose lifetime is over.
    func expiredActivities(now: Int64, limit: Int = 100) async throws -> [OpenActivity] {
        try await database.query("SELECT * FROM live_activities WHERE ended_at IS NULL AND end_at <= ? ORDER BY end_at LIMIT ?", now,
                                 Int64(limit))
            .map(Self.activity)
    }

    /// Open activities for messages of one folder.
    public func openActivities(mailboxID: Int64, folder: String) async throws -> [OpenActivity] {
        try await database.query("SELECT * FROM live_activities WHERE ended_at IS NULL AND mailbox_id = ? AND folder = ?", mailboxID,
                                 folder)
            .map(Self.activity)
    }

    public func openActivities() async throws -> [OpenActivity] {
        try await database.query("SELECT * FROM live_activities WHERE ended_at IS NULL ORDER BY end_at").map(Self.activity)
    }

    /// Stores each activity's `end` envelope and marks it ended, in one transaction.
    func recordActivityEnds(_ ends: [(activity: OpenActivity, eventID: String, envelope: [UInt8]?)], reason: String,
                            expiresAt: Int64) async throws {
        let now = clock()
        try await database.transaction { c in
            for e in ends {
                let changed = try c.execute("""
                    UPDATE live_activities SET ended_at = ?, end_reason = ? WHERE pairing_id = ? AND activity_id = ? AND ended_at IS NULL
                    """, now, reason, e.activity.pairingID, e.activity.activityID)
                guard changed > 0, let envelope = e.envelope else { continue }
                _ = try c.execute("""
                    INSERT INTO deliveries (pairing_id, event_id, history_id, envelope, status, attempts, next_attempt_at, expires_at,
                        created_at, updated_at, kind)
                    VALUES (?, ?, NULL, ?, 'pending', 0, ?, ?, ?, ?, 'live-activity-end')
                    """, e.activity.pairingID, e.eventID, envelope, now, expiresAt, now, now)
            }
        }
    }

    static func insertActivityStarts(_ c: SQLiteConnection, _ starts: [ActivityStart], historyID: Int64?, position: FolderPosition?,
                                     expiresAt: Int64,
                                     now: Int64) throws {
        for s in starts {
            _ = try c.execute("""
                INSERT INTO deliveries (pairing_id, event_id, history_id, envelope, status, attempts, next_attempt_at, expires_at,
                    created_at, updated_at, kind)
                VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, 'live-activity-start')
                """, s.pairingID, s.eventID, historyID, s.envelope, now, expiresAt, now, now)
            _ = try c.execute("""
                INSERT INTO live_activities (pairing_id, activity_id, mailbox_id, folder, uid_validity, uid, content_sealed, started_at,
                    end_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, s.pairingID, s.activityID, position?.mailboxID, position?.folder, position.map { Int64($0.uidValidity) },
                              position.map { Int64($0.uid) }, s.contentSealed, now, s.endAt)
        }
    }

    private static func activity(_ row: SQLiteRow) throws -> OpenActivity {
        OpenActivity(pairingID: try row.get("pairing_id"), activityID: try row.get("activity_id"),
                     mailboxID: try row.get("mailbox_id", as: Int64?.self),
                     folder: try row.get("folder", as: String?.self),
                     uidValidity: try row.get("uid_validity", as: Int64?.self).map { UInt32(truncatingIfNeeded: $0) },
                     uid: try row.get("uid", as: Int64?.self).map { UInt32(truncatingIfNeeded: $0) },
                     contentSealed: try row.get("content_sealed"), endAt: try row.get("end_at"))
    }
}
