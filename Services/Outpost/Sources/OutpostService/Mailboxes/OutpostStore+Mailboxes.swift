import MailwakeIMAP
import MailwakeSQLite

extension OutpostStore {
    /// Adds a mailbox with its sealed secret (password or token command).
    @discardableResult
    public func addMailbox(_ record: MailboxRecord, secret: String) async throws -> MailboxRecord {
        if try await mailbox(label: record.label) != nil {
            throw OutpostError(.mailbox, "a mailbox labelled '\(record.label)' exists already: pick another --label or remove it first")
        }
        let now = clock()
        let r = record
        let id: Int64 = try await database.transaction { c in
            _ = try c.execute("""
                INSERT INTO mailboxes (label, host, port, security, ca_file, username, auth, secret_sealed, folders, max_connections,
                    enabled,
                                       created_at, updated_at, trusted_authserv_ids, idle_restart_seconds, provider)
                VALUES (?, ?, ?, ?, ?, ?, ?, X'', ?, ?, ?, ?, ?, ?, ?, ?)
                """, r.label, r.endpoint.host, Int64(r.endpoint.port), r.endpoint.security.rawValue, r.endpoint.caFile, r.username,
                              r.authentication.rawValue, Self.encodeFolders(r.folders), Int64(r.maxConnections), r.enabled ? 1 : 0, now,
                              now,
                              r.trustedAuthservIDs.joined(separator: ","), r.idleRestart.map { $0.components.seconds }, r.provider)
            return try c.queryValue("SELECT last_insert_rowid()", as: Int64.self) ?? 0
        }
        // Sealed under a context naming the row, so a sealed value cannot be moved to another mailbox.
        let sealed = try box.seal(Array(secret.utf8), purpose: "mailbox", context: "mailbox:\(id)")
        _ = try await database.execute("UPDATE mailboxes SET secret_sealed = ? WHERE id = ?", sealed, id)
        var stored = record
        stored.id = id
        return stored
    }

    public func mailboxes() async throws -> [MailboxRecord] {
        try await database.query("SELECT * FROM mailboxes ORDER BY id").map(Self.mailbox)
    }

    public func mailbox(label: String) async throws -> MailboxRecord? {
        try await database.queryRow("SELECT * FROM mailboxes WHERE label = ?", label).map(Self.mailbox)
    }

    public func mailbox(id: Int64) async throws -> MailboxRecord? {
        try await database.queryRow("SELECT * FROM mailboxes WHERE id = ?", id).map(Self.mailbox)
    }

    /// Changes a mailbox's folders, connection limit, enabled state or
    /// password; false when there is no such mailbox.
    public func updateMailbox(_ id: Int64, folders: [String]? = nil, maxConnections: Int? = nil, enabled: Bool? = nil,
                              secret: String? = nil,
                              trustedAuthservIDs: [String]? = nil) async throws -> Bool {
        let now = clock()
        let sealed = try secret.map { try box.seal(Array($0.utf8), purpose: "mailbox", context: "mailbox:\(id)") }
        return try await database.transaction { c in
            guard try c.queryRow("SELECT id FROM mailboxes WHERE id = ?", id) != nil else { return false }
            if let folders { _ = try c.execute("UPDATE mailboxes SET folders = ? WHERE id = ?", Self.encodeFolders(folders), id) }
            if let maxConnections { _ = try c.execute("UPDATE mailboxes SET max_connections = ? WHERE id = ?", Int64(maxConnections), id) }
            if let enabled { _ = try c.execute("UPDATE mailboxes SET enabled = ? WHERE id = ?", enabled ? 1 : 0, id) }
            if let trustedAuthservIDs {
                _ = try c.execute("UPDATE mailboxes SET trusted_authserv_ids = ? WHERE id = ?", trustedAuthservIDs.joined(separator: ","),
                                  id)
            }
            if let sealed { _ = try c.execute("UPDATE mailboxes SET secret_sealed = ? WHERE id = ?", sealed, id) }
            _ = try c.execute("UPDATE mailboxes SET updated_at = ? WHERE id = ?", now, id)
            return true
        }
    }

    /// The password, or the OAuth token command.
    public func mailboxSecret(_ id: Int64) async throws -> String {
        guard let sealed = try await database.queryValue("SELECT secret_sealed FROM mailboxes WHERE id = ?", id, as: [UInt8].self) else {
            throw OutpostError(.mailbox, "no mailbox \(id)")
        }
        return String(decoding: try box.open(sealed, purpose: "mailbox", context: "mailbox:\(id)"), as: UTF8.self)
    }

    /// Removes a mailbox, its folder state and rules, and its id from every
    /// permission and invitation that names it (a limited device keeps the
    /// rest of its list, or none); false when there was none. Ids are never
    /// reused (AUTOINCREMENT), so nothing can come to name another mailbox.
    public func removeMailbox(label: String) async throws -> Bool {
        try await database.transaction { c in
            guard let id = try c.queryValue("SELECT id FROM mailboxes WHERE label = ?", label, as: Int64.self) else { return false }
            _ = try c.execute("DELETE FROM folder_state WHERE mailbox_id = ?", id)
            _ = try c.execute("DELETE FROM folder_watch_gaps WHERE mailbox_id = ?", id)
            _ = try c.execute("DELETE FROM mailboxes WHERE id = ?", id)
            for row in try c.query("SELECT id, mailbox_ids FROM permissions WHERE mailbox_ids IS NOT NULL") {
                let ids = Self.decodeIDs(try row.get("mailbox_ids", as: String?.self)) ?? []
                guard ids.contains(id) else { continue }
                _ = try c.execute("UPDATE permissions SET mailbox_ids = ? WHERE id = ?", Self.encodeIDs(ids.filter { $0 != id }),
                                  try row.get("id", as: Int64.self))
            }
            for row in try c.query("SELECT token_hash, mailbox_ids FROM invitations WHERE mailbox_ids IS NOT NULL") {
                let ids = Self.decodeIDs(try row.get("mailbox_ids", as: String?.self)) ?? []
                guard ids.contains(id) else { continue }
                _ = try c.execute("UPDATE invitations SET mailbox_ids = ? WHERE token_hash = ?", Self.encodeIDs(ids.filter { $0 != id }),
                                  try row.get("token_hash", as: [UInt8].self))
            }
            return true
        }
    }

    public func folderStates(mailboxID: Int64? = nil) async throws -> [FolderState] {
        let rows = if let mailboxID {
            try await database.query("SELECT * FROM folder_state WHERE mailbox_id = ? ORDER BY folder", mailboxID)
        } else {
            try await database.query("SELECT * FROM folder_state ORDER BY mailbox_id, folder")
        }
        return try rows.map(Self.folderState)
    }

    public func folderState(mailboxID: Int64, folder: String) async throws -> FolderState? {
        try await database.queryRow("SELECT * FROM folder_state WHERE mailbox_id = ? AND folder = ?", mailboxID,
                                    folder).map(Self.folderState)
    }

    /// Sets the UIDVALIDITY and last handled UID (a first run's baseline, or a resync).
    public func setFolderPosition(mailboxID: Int64, folder: String, uidValidity: UInt32, lastUID: UInt32) async throws {
        let now = clock()
        try await database.transaction { c in
            try Self.upsertPosition(c, mailboxID: mailboxID, folder: folder, uidValidity: uidValidity, lastUID: lastUID, now: now)
        }
    }

    /// Records what a folder's watcher is doing (shown by `status`); the position is kept.
    public func setWatchState(mailboxID: Int64, folder: String, _ state: FolderState.WatchState, error: String? = nil) async throws {
        let now = clock()
        _ = try await database.execute("""
            INSERT INTO folder_state (mailbox_id, folder, watch_state, last_error, state_since, updated_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (mailbox_id, folder) DO UPDATE SET
                state_since = CASE WHEN folder_state.watch_state = excluded.watch_state THEN folder_state.state_since ELSE
                    excluded.state_since END,
                watch_state = excluded.watch_state, last_error = excluded.last_error, updated_at = excluded.updated_at
            """, mailboxID, folder, state.rawValue, error, now, now)
    }

    static func upsertPosition(_ c: SQLiteConnection, mailboxID: Int64, folder: String, uidValidity: UInt32, lastUID: UInt32,
                               now: Int64) throws {
        _ = try c.execute("""
            INSERT INTO folder_state (mailbox_id, folder, uid_validity, last_uid, state_since, updated_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (mailbox_id, folder) DO UPDATE SET uid_validity = excluded.uid_validity, last_uid = excluded.last_uid,
                updated_at = excluded.updated_at
            """, mailboxID, folder, Int64(uidValidity), Int64(lastUID), now, now)
    }

    private static func mailbox(_ row: SQLiteRow) throws -> MailboxRecord {
        let security = IMAPEndpoint.Security(rawValue: try row.get("security")) ?? .implicitTLS
        let port: Int64 = try row.get("port")
        var endpoint = IMAPEndpoint(host: try row.get("host"), port: UInt16(clamping: port), security: security)
        endpoint.caFile = try row.get("ca_file", as: String?.self)
        return MailboxRecord(id: try row.get("id"), label: try row.get("label"), endpoint: endpoint, username: try row.get("username"),
                             authentication: MailboxRecord.Authentication(rawValue: try row.get("auth")) ?? .password,
                             folders: decodeFolders(try row.get("folders")),
                             maxConnections: Int(try row.get("max_connections", as: Int64.self)),
                             enabled: try row.get("enabled", as: Int64.self) != 0,
                             trustedAuthservIDs: (try row.get("trusted_authserv_ids",
                                                              as: String.self)).split(separator: ",").map(String.init),
                             idleRestart: try row.get("idle_restart_seconds", as: Int64?.self).map { .seconds($0) },
                             provider: try row.get("provider", as: String?.self))
    }

    private static func folderState(_ row: SQLiteRow) throws -> FolderState {
        FolderState(mailboxID: try row.get("mailbox_id"), folder: try row.get("folder"),
                    uidValidity: try row.get("uid_validity", as: Int64?.self).map { UInt32(truncatingIfNeeded: $0) },
                    lastUID: try row.get("last_uid", as: Int64?.self).map { UInt32(truncatingIfNeeded: $0) },
                    watchState: FolderState.WatchState(rawValue: try row.get("watch_state")) ?? .starting,
                    lastError: try row.get("last_error", as: String?.self), stateSince: try row.get("state_since"),
                    lastConfirmedAt: try row.get("last_confirmed_at", as: Int64?.self),
                    highestModSeq: try row.get("highest_modseq", as: Int64?.self).map { UInt64(bitPattern: $0) },
                    syncedAt: try row.get("synced_at", as: Int64?.self))
    }

    /// Folders one per line (a folder name cannot contain a line break).
    static func encodeFolders(_ folders: [String]) -> String { folders.joined(separator: "\n") }
    static func decodeFolders(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }
}
