import MailwakeSQLite

extension OutpostStore {
    /// Records a notification in one transaction: the history entry, its
    /// sealed envelopes (before anything is sent), and, for mail, the folder
    /// position moving past the message, so a crash can neither lose nor repeat it.
    /// Returns the history id (nil when nothing was sealed).
    func recordNotification(_ entry: HistoryDraft?, deliveries: [(pairingID: String, eventID: String, envelope: [UInt8])],
                            channelDeliveries: [(channelID: Int64, eventID: String, payloadSealed: [UInt8])] = [],
                            activities: [ActivityStart] = [], expiresAt: Int64,
                            advancing position: FolderPosition?) async throws -> Int64? {
        let now = clock()
        return try await database.transaction { c in
            var historyID: Int64?
            if let entry {
                _ = try c.execute("INSERT INTO history (event_id, mailbox, folder, sender, subject_summary, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                                  entry.eventID, entry.mailbox, entry.folder, entry.sender, entry.subjectSummary, now)
                historyID = try c.queryValue("SELECT last_insert_rowid()", as: Int64.self)
            }
            for d in deliveries {
                _ = try c.execute("""
                    INSERT INTO deliveries (pairing_id, event_id, history_id, envelope, status, attempts, next_attempt_at, expires_at, created_at, updated_at)
                    VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)
                    """, d.pairingID, d.eventID, historyID, d.envelope, now, expiresAt, now, now)
            }
            for d in channelDeliveries {
                _ = try c.execute("""
                    INSERT INTO channel_deliveries (channel_id, event_id, history_id, payload_sealed, status, attempts, next_attempt_at, expires_at,
                                                    created_at, updated_at)
                    VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)
                    """, d.channelID, d.eventID, historyID, d.payloadSealed, now, expiresAt, now, now)
            }
            try Self.insertActivityStarts(c, activities, historyID: historyID, position: position, expiresAt: expiresAt, now: now)
            if let p = position {
                try Self.upsertPosition(c, mailboxID: p.mailboxID, folder: p.folder, uidValidity: p.uidValidity, lastUID: p.uid, now: now)
            }
            return historyID
        }
    }

    /// Deliveries whose next step is due: submissions (`pending`) and status checks (`queued`).
    func dueDeliveries(limit: Int) async throws -> [DeliveryRecord] {
        let rows = try await database.query("""
            SELECT pairing_id, event_id, envelope, status, attempts, expires_at, last_error, kind FROM deliveries
            WHERE status IN ('pending', 'queued') AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?
            """, clock(), limit)
        return try rows.map(Self.record)
    }

    /// The notification envelopes of one history entry (one per device; Live Activity pushes are not listed).
    public func deliveries(historyID: Int64) async throws -> [DeliveryRecord] {
        try await database.query("""
            SELECT pairing_id, event_id, envelope, status, attempts, expires_at, last_error, kind FROM deliveries
            WHERE history_id = ? AND kind = 'notification' ORDER BY pairing_id
            """, historyID).map(Self.record)
    }

    /// How many deliveries the relay does not have yet.
    public func pendingCount() async throws -> Int {
        try await database.queryValue("SELECT count(*) FROM deliveries WHERE status = 'pending'", as: Int.self) ?? 0
    }

    func updateDelivery(_ pairingID: String, _ eventID: String, status: DeliveryRecord.Status, nextAttemptAt: Int64, attempted: Bool, error: String?) async throws {
        _ = try await database.execute("""
            UPDATE deliveries SET status = ?, next_attempt_at = ?, attempts = attempts + ?, last_error = ?, updated_at = ?
            WHERE pairing_id = ? AND event_id = ?
            """, status.rawValue, nextAttemptAt, attempted ? 1 : 0, error, clock(), pairingID, eventID)
    }

    private static func record(_ row: SQLiteRow) throws -> DeliveryRecord {
        DeliveryRecord(pairingID: try row.get("pairing_id"), eventID: try row.get("event_id"), envelope: try row.get("envelope"),
                       status: DeliveryRecord.Status(rawValue: try row.get("status")) ?? .failed, attempts: try row.get("attempts"),
                       expiresAt: try row.get("expires_at"), lastError: try row.get("last_error", as: String?.self), kind: try row.get("kind"))
    }
}
