import Foundation
import MailwakeSQLite

extension OutpostStore {
    @discardableResult
    public func addChannel(_ record: ChannelRecord, secrets: ChannelSecrets) async throws -> ChannelRecord {
        if try await channel(name: record.name) != nil {
            throw OutpostError(.channel, "a channel named '\(record.name)' exists already: pick another --name or remove it first")
        }
        let now = clock()
        let options = String(decoding: try JSONEncoder().encode(record.options), as: UTF8.self)
        let r = record
        let id: Int64 = try await database.transaction { c in
            _ = try c.execute("""
                INSERT INTO channels (name, kind, url, options, secret_sealed, allow_private, enabled, created_at, updated_at)
                VALUES (?, ?, ?, ?, X'', ?, ?, ?, ?)
                """, r.name, r.kind.rawValue, r.url, options, r.allowPrivate ? 1 : 0, r.enabled ? 1 : 0, now, now)
            return try c.queryValue("SELECT last_insert_rowid()", as: Int64.self) ?? 0
        }
        let sealed = try box.seal(Array(try JSONEncoder().encode(secrets)), purpose: "channel", context: "channel:\(id)")
        _ = try await database.execute("UPDATE channels SET secret_sealed = ? WHERE id = ?", sealed, id)
        var stored = record
        stored.id = id
        return stored
    }

    public func channels(enabledOnly: Bool = false) async throws -> [ChannelRecord] {
        try await database.query("SELECT * FROM channels \(enabledOnly ? "WHERE enabled = 1" : "") ORDER BY id").map(Self.channel)
    }

    public func channel(name: String) async throws -> ChannelRecord? {
        try await database.queryRow("SELECT * FROM channels WHERE name = ?", name).map(Self.channel)
    }

    public func channelSecrets(_ id: Int64) async throws -> ChannelSecrets {
        guard let sealed = try await database.queryValue("SELECT secret_sealed FROM channels WHERE id = ?", id, as: [UInt8].self) else {
            throw OutpostError(.channel, "no channel \(id)")
        }
        do {
            return try JSONDecoder().decode(ChannelSecrets.self,
                                            from: Data(try box.open(sealed, purpose: "channel", context: "channel:\(id)")))
        } catch let error as OutpostError {
            throw error
        } catch {
            throw OutpostError(.sealedData, "the secrets of channel \(id) are damaged")
        }
    }

    public func removeChannel(name: String) async throws -> Bool {
        try await database.execute("DELETE FROM channels WHERE name = ?", name) > 0
    }

    /// Turns a channel off, with the reason (a webhook that answered 410 Gone).
    func disableChannel(_ id: Int64, reason: String) async throws {
        _ = try await database.execute("UPDATE channels SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?", reason,
                                       clock(), id)
    }

    // MARK: deliveries

    func dueChannelDeliveries(limit: Int) async throws -> [ChannelDeliveryRecord] {
        let now = clock()
        return try await database.query("""
            SELECT channel_id, event_id, payload_sealed, attempts, expires_at FROM channel_deliveries
            WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?
            """, now, Int64(limit)).map { row in
            ChannelDeliveryRecord(channelID: try row.get("channel_id"), eventID: try row.get("event_id"),
                                  payloadSealed: try row.get("payload_sealed"),
                                  attempts: Int(try row.get("attempts", as: Int64.self)), expiresAt: try row.get("expires_at"),
                                  status: .pending)
        }
    }

    public func channelDeliveries(historyID: Int64) async throws -> [ChannelDeliveryRecord] {
        try await database.query("""
            SELECT channel_id, event_id, X'' AS payload_sealed, attempts, expires_at, status, last_error FROM channel_deliveries
                WHERE history_id = ?
            ORDER BY channel_id
            """, historyID).map { row in
            ChannelDeliveryRecord(channelID: try row.get("channel_id"), eventID: try row.get("event_id"), payloadSealed: [],
                                  attempts: Int(try row.get("attempts", as: Int64.self)), expiresAt: try row.get("expires_at"),
                                  status: ChannelDeliveryRecord.Status(rawValue: try row.get("status")) ?? .pending,
                                  lastError: try row.get("last_error", as: String?.self))
        }
    }

    func updateChannelDelivery(_ channelID: Int64, _ eventID: String, status: ChannelDeliveryRecord.Status, nextAttemptAt: Int64,
                               error: String?) async throws {
        _ = try await database.execute("""
            UPDATE channel_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, last_error = ?, updated_at = ?
            WHERE channel_id = ? AND event_id = ?
            """, status.rawValue, nextAttemptAt, error, clock(), channelID, eventID)
    }

    private static func channel(_ row: SQLiteRow) throws -> ChannelRecord {
        let options = (try? JSONDecoder().decode(ChannelOptions.self,
                                                 from: Data((try row.get("options", as: String.self)).utf8))) ?? ChannelOptions()
        return ChannelRecord(id: try row.get("id"), name: try row.get("name"),
                             kind: ChannelRecord.Kind(rawValue: try row.get("kind")) ?? .webhook,
                             url: try row.get("url"), options: options, allowPrivate: try row.get("allow_private", as: Int64.self) != 0,
                             enabled: try row.get("enabled", as: Int64.self) != 0,
                             disabledReason: try row.get("disabled_reason", as: String?.self))
    }
}
