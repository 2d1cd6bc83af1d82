import MailwakeSQLite

extension OutpostStore {
    /// What was notified in the last `days` days, newest first.
    public func history(days: Int, limit: Int = 200) async throws -> [HistoryEntry] {
        let since = clock() - Int64(days) * 86400
        let rows = try await database.query("""
            SELECT id, mailbox, folder, sender, subject_summary, created_at, mail_received_at FROM history WHERE created_at >= ?
                ORDER BY created_at DESC, id DESC LIMIT ?
            """, since, limit)
        var entries: [HistoryEntry] = []
        for row in rows {
            let id: Int64 = try row.get("id")
            let deliveries = try await database.query("""
                SELECT p.device_id, d.status, d.last_error, d.accepted_at, d.sent_at, d.displayed_at, d.awaiting_receipt
                FROM deliveries d JOIN pairings p USING (pairing_id)
                WHERE d.history_id = ? AND d.kind = 'notification' ORDER BY p.device_id
                """, id).map { r in
                    let displayedAt = try r.get("displayed_at", as: Int64?.self)
                    return HistoryDelivery(deviceID: try r.get("device_id"),
                                           status: displayedAt != nil ? "displayed" : try r.get("status"),
                                           detail: try r.get("last_error", as: String?.self),
                                           acceptedAt: try r.get("accepted_at", as: Int64?.self),
                                           sentAt: try r.get("sent_at", as: Int64?.self), displayedAt: displayedAt,
                                           awaitingReceipt: (try r.get("awaiting_receipt") as Int64) != 0)
                }
            entries.append(HistoryEntry(id: id, mailbox: try row.get("mailbox"), folder: try row.get("folder"),
                                        sender: try row.get("sender"),
                                        subjectSummary: try row.get("subject_summary"), createdAt: try row.get("created_at"),
                                        mailReceivedAt: try row.get("mail_received_at", as: Int64?.self), devices: deliveries))
        }
        return entries
    }

    /// Deletes history older than `days` days (0: all of it); deliveries stay
    /// until they finish, then go with their history.
    @discardableResult
    public func clearHistory(olderThanDays days: Int = 0) async throws -> Int {
        let before = clock() - Int64(days) * 86400 + (days == 0 ? 1 : 0)
        return try await database.transaction { c in
            _ = try c.execute("""
                DELETE FROM deliveries WHERE status IN ('sent', 'failed', 'expired') AND history_id IN (SELECT id FROM history
                    WHERE created_at < ?)
                """, before)
            return try c.execute("DELETE FROM history WHERE created_at < ?", before)
        }
    }
}
