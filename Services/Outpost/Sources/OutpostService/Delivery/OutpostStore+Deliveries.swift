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
                _ = try c.execute("""
                    INSERT INTO history (event_id, mailbox, folder, sender, subject_summary, created_at, mail_received_at) VALUES (?, ?,
                        ?, ?, ?, ?, ?)
                    """, entry.eventID, entry.mailbox, entry.folder, entry.sender, entry.subjectSummary, now, entry.mailReceivedAt)
                historyID = try c.queryValue("SELECT last_insert_rowid()", as: Int64.self)
            }
            for d in deliveries {
                _ = try c.execute("""
                    INSERT INTO deliveries (pairing_id, event_id, history_id, envelope, status, attempts, next_attempt_at, expires_at,
                        created_at, updated_at)
                    VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)
                    """, d.pairingID, d.eventID, historyID, d.envelope, now, expiresAt, now, now)
            }
            for d in channelDeliveries {
                _ = try c.execute("""
                    INSERT INTO channel_deliveries (channel_id, event_id, history_id, payload_sealed, status, attempts, next_attempt_at,
                        expires_at,
                                                    created_at, updated_at)
                    VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)
                    """, d.channelID, d.eventID, historyID, d.payloadSealed, now, expiresAt, now, now)
            }
            try Self.insertActivityStarts(c, activities, historyID: historyID, position: position, expiresAt: expiresAt, now: now)
            if let p = position {
                try Self.upsertPosition(c, mailboxID: p.mailboxID, folder: p.folder, uidValidity: p.uidValidity, lastUID: p.uid, now: now)
                if let digest = p.messageIDDigest { try Self.rememberNotified(c, mailboxID: p.mailboxID, digest: digest, now: now) }
            }
            return historyID
        }
    }

    static let recordColumns = "pairing_id, event_id, envelope, status, attempts, expires_at, last_error, kind, awaiting_receipt, " +
                               "created_at, accepted_at, sent_at"

    /// Deliveries whose next step is due: submissions (`pending`), status
    /// checks (`queued`) and receipt checks (`sent`, awaiting its receipt).
    func dueDeliveries(limit: Int) async throws -> [DeliveryRecord] {
        let now = clock()
        let rows = try await database.query("""
            SELECT * FROM (
                SELECT \(Self.recordColumns), next_attempt_at FROM deliveries WHERE status IN ('pending', 'queued')
                    AND next_attempt_at <= ?
                UNION ALL
                SELECT \(Self.recordColumns), next_attempt_at FROM deliveries WHERE awaiting_receipt = 1 AND status = 'sent'
                    AND next_attempt_at <= ?
            ) ORDER BY next_attempt_at LIMIT ?
            """, now, now, limit)
        return try rows.map(Self.record)
    }

    /// Records the relay's answer 202: when it accepted the delivery, by the outpost's clock.
    func markAccepted(_ pairingID: String, _ eventID: String, at: Int64, nextCheckAt: Int64) async throws {
        _ = try await database.execute("""
            UPDATE deliveries SET status = 'queued', accepted_at = ?, next_attempt_at = ?, attempts = attempts + 1, last_error = NULL,
                updated_at = ?
            WHERE pairing_id = ? AND event_id = ?
            """, at, nextCheckAt, clock(), pairingID, eventID)
    }

    /// Records `sent` with the relay's times; followed for its receipt until
    /// `nextCheckAt` is nil (displayed, or no longer worth asking).
    func markSent(_ pairingID: String, _ eventID: String, sentAt: Int64?, displayedAt: Int64?, nextCheckAt: Int64?) async throws {
        _ = try await database.execute("""
            UPDATE deliveries SET status = 'sent', sent_at = COALESCE(?, sent_at), displayed_at = COALESCE(?, displayed_at),
                awaiting_receipt = ?, next_attempt_at = COALESCE(?, next_attempt_at), last_error = NULL, updated_at = ?
            WHERE pairing_id = ? AND event_id = ?
            """, sentAt, displayedAt, nextCheckAt == nil ? 0 : 1, nextCheckAt, clock(), pairingID, eventID)
    }

    /// The notification envelopes of one history entry (one per device; Live Activity pushes are not listed).
    public func deliveries(historyID: Int64) async throws -> [DeliveryRecord] {
        try await database.query("""
            SELECT \(Self.recordColumns) FROM deliveries
            WHERE history_id = ? AND kind = 'notification' ORDER BY pairing_id
            """, historyID).map(Self.record)
    }

    /// Receipts of notifications sent since `since` (PROTOCOL.md §13): sent
    /// (displayed included), displayed, still awaiting a receipt, and the
    /// median seconds from APNs sent to displayed.
    public func receiptSummary(since: Int64) async throws -> (sent: Int, displayed: Int, awaiting: Int, medianSentToDisplayed: Int64?) {
        let counts = try await database.query("""
            SELECT count(*) AS sent, count(displayed_at) AS displayed, COALESCE(sum(awaiting_receipt), 0) AS awaiting FROM deliveries
            WHERE kind = 'notification' AND status = 'sent' AND updated_at >= ?
            """, since)
        let spans = try await database.query("""
            SELECT displayed_at - sent_at AS span FROM deliveries
            WHERE kind = 'notification' AND displayed_at IS NOT NULL AND sent_at IS NOT NULL AND updated_at >= ? ORDER BY span
            """, since).map { try $0.get("span") as Int64 }
        let row = try counts.first.map { ($0, try $0.get("sent") as Int, try $0.get("displayed") as Int, try $0.get("awaiting") as Int) }
        return (row?.1 ?? 0, row?.2 ?? 0, row?.3 ?? 0, spans.isEmpty ? nil : max(0, spans[spans.count / 2]))
    }

    /// How many deliveries the relay does not have yet.
    public func pendingCount() async throws -> Int {
        try await database.queryValue("SELECT count(*) FROM deliveries WHERE status = 'pending'", as: Int.self) ?? 0
    }

    func updateDelivery(_ pairingID: String, _ eventID: String, status: DeliveryRecord.Status, nextAttemptAt: Int64, attempted: Bool,
                        error: String?) async throws {
        _ = try await database.execute("""
            UPDATE deliveries SET status = ?, next_attempt_at = ?, attempts = attempts + ?, last_error = ?, updated_at = ?
            WHERE pairing_id = ? AND event_id = ?
            """, status.rawValue, nextAttemptAt, attempted ? 1 : 0, error, clock(), pairingID, eventID)
    }

    private static func record(_ row: SQLiteRow) throws -> DeliveryRecord {
        DeliveryRecord(pairingID: try row.get("pairing_id"), eventID: try row.get("event_id"), envelope: try row.get("envelope"),
                       status: DeliveryRecord.Status(rawValue: try row.get("status")) ?? .failed, attempts: try row.get("attempts"),
                       expiresAt: try row.get("expires_at"), lastError: try row.get("last_error", as: String?.self),
                       kind: try row.get("kind"),
                       awaitingReceipt: (try row.get("awaiting_receipt") as Int64) != 0, createdAt: try row.get("created_at"),
                       acceptedAt: try row.get("accepted_at", as: Int64?.self), sentAt: try row.get("sent_at", as: Int64?.self))
    }
}
