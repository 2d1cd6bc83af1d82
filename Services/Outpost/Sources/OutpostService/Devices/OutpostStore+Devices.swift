import MailwakeCrypto
public import MailwakeProtocol
import MailwakeSQLite

extension OutpostStore {
    /// Locks a device's keys: records them the first time, and refuses keys
    /// that differ from those locked before.
    func lockDevice(_ c: SQLiteConnection, deviceID: String, signingKey: [UInt8], agreementKey: [UInt8], now: Int64) throws {
        if let row = try c.queryRow("SELECT signing_key, agreement_key FROM devices WHERE device_id = ?", deviceID) {
            let signing: [UInt8] = try row.get("signing_key")
            let agreement: [UInt8] = try row.get("agreement_key")
            guard ConstantTime.equals(signing, signingKey), ConstantTime.equals(agreement, agreementKey) else {
                throw OutpostError(.pairing, "device \(deviceID) is already known with other keys; unpair and remove it first")
            }
            return
        }
        _ = try c.execute("INSERT INTO devices (device_id, signing_key, agreement_key, added_at) VALUES (?, ?, ?, ?)", deviceID,
                          signingKey, agreementKey, now)
    }

    /// Every known device with its permissions, oldest first.
    public func knownDevices() async throws -> [KnownDevice] {
        let rows = try await database.query("SELECT device_id, signing_key, agreement_key, added_at FROM devices ORDER BY added_at, " +
                                            "device_id")
        let permissions = try await activePermissions()
        let pushing = Set(try await pairings(activeOnly: true).map(\.deviceID))
        return try rows.map { row in
            let id: String = try row.get("device_id")
            return KnownDevice(deviceID: id, signingKey: try row.get("signing_key"), agreementKey: try row.get("agreement_key"),
                               addedAt: try row.get("added_at"),
                               permissions: permissions.filter { $0.deviceID == id }, push: pushing.contains(id))
        }
    }

    /// One known device, or nil.
    public func knownDevice(_ deviceID: String) async throws -> KnownDevice? {
        guard let row = try await database.queryRow("SELECT device_id, signing_key, agreement_key, added_at FROM devices WHERE " +
                                                    "device_id = ?", deviceID) else { return nil }
        let permissions = try await activePermissions(deviceID: deviceID)
        let push = try await pairings(activeOnly: true).contains { $0.deviceID == deviceID }
        return KnownDevice(deviceID: deviceID, signingKey: try row.get("signing_key"), agreementKey: try row.get("agreement_key"),
                           addedAt: try row.get("added_at"),
                           permissions: permissions, push: push)
    }

    func activePermissions(deviceID: String? = nil) async throws -> [DevicePermission] {
        let rows = deviceID == nil
            ? try await database.query("SELECT * FROM permissions WHERE revoked_at IS NULL ORDER BY id")
            : try await database.query("SELECT * FROM permissions WHERE revoked_at IS NULL AND device_id = ? ORDER BY id", deviceID!)
        return try rows.map(Self.permission)
    }

    static func permission(_ row: SQLiteRow) throws -> DevicePermission {
        DevicePermission(id: try row.get("id"), deviceID: try row.get("device_id"),
                         scope: ManagementScope(rawValue: try row.get("scope")) ?? .manage,
                         mailboxIDs: decodeIDs(try row.get("mailbox_ids", as: String?.self)), grantedAt: try row.get("granted_at"),
                         grantedBy: try row.get("granted_by"), revokedAt: try row.get("revoked_at", as: Int64?.self))
    }

    /// Grants `scope` (manage or content) to a known device, replacing an
    /// active grant of the same scope (so the mailbox limit can change).
    public func grant(_ scope: ManagementScope, to deviceID: String, mailboxIDs: [Int64]? = nil, by actor: String) async throws {
        guard scope != .push else { throw OutpostError(.pairing,
                                                       "push is granted by pairing: use `mailwake-outpost pair` or `invite " +
                                                       "--scope push`") }
        let now = clock()
        try await database.transaction { c in
            guard try c.queryRow("SELECT 1 AS x FROM devices WHERE device_id = ?", deviceID) != nil else {
                throw OutpostError(.pairing, "no device \(deviceID)")
            }
            try Self.grant(c, scope, to: deviceID, mailboxIDs: mailboxIDs, by: actor, now: now)
            try Self.log(c, at: now, actor: actor, action: "grant",
                         detail: "\(scope.rawValue) to " +
                                 "\(deviceID)\(mailboxIDs.map { " (mailboxes \($0.map(String.init).joined(separator: ",")))" } ?? "")")
        }
    }

    static func grant(_ c: SQLiteConnection, _ scope: ManagementScope, to deviceID: String, mailboxIDs: [Int64]?, by actor: String,
                      now: Int64) throws {
        _ = try c.execute("UPDATE permissions SET revoked_at = ?, revoked_by = ? WHERE device_id = ? AND scope = ? AND revoked_at IS NULL",
                          now, actor, deviceID, scope.rawValue)
        _ = try c.execute("INSERT INTO permissions (device_id, scope, mailbox_ids, granted_at, granted_by) VALUES (?, ?, ?, ?, ?)",
                          deviceID, scope.rawValue, encodeIDs(mailboxIDs), now, actor)
    }

    /// Revokes an active `manage` or `content` permission; false when there was none.
    public func revoke(_ scope: ManagementScope, from deviceID: String, by actor: String) async throws -> Bool {
        let now = clock()
        return try await database.transaction { c in
            let n = try c.execute("UPDATE permissions SET revoked_at = ?, revoked_by = ? WHERE device_id = ? AND scope = ? AND " +
                                  "revoked_at IS NULL",
                                  now, actor, deviceID, scope.rawValue)
            if n > 0 { try Self.log(c, at: now, actor: actor, action: "revoke", detail: "\(scope.rawValue) from \(deviceID)") }
            return n > 0
        }
    }

    // MARK: Invitations

    /// Records an invitation (only the token's hash).
    public func createInvitation(_ invitation: Invitation, actor: String) async throws {
        let i = invitation
        try await database.transaction { c in
            _ = try c.execute("""
                INSERT INTO invitations (token_hash, scopes, mailbox_ids, pairing_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
                """, i.tokenHash, i.scopes.map(\.rawValue).joined(separator: ","), Self.encodeIDs(i.mailboxIDs), i.pairingID, i.createdAt,
                i.expiresAt)
            try Self.log(c, at: i.createdAt, actor: actor, action: "invite",
                         detail: "offered \(i.scopes.map(\.rawValue).joined(separator: ","))")
        }
    }

    /// The invitation whose token hashes to `tokenHash`, or nil.
    public func invitation(tokenHash: [UInt8]) async throws -> Invitation? {
        try await database.queryRow("SELECT * FROM invitations WHERE token_hash = ?", tokenHash).map(Self.invitation)
    }

    static func invitation(_ row: SQLiteRow) throws -> Invitation {
        Invitation(tokenHash: try row.get("token_hash"),
                   scopes: (try row.get("scopes",
                                        as: String.self)).split(separator: ",").compactMap { ManagementScope(rawValue: String($0)) },
                   mailboxIDs: decodeIDs(try row.get("mailbox_ids", as: String?.self)),
                   pairingID: try row.get("pairing_id", as: String?.self),
                   createdAt: try row.get("created_at"), expiresAt: try row.get("expires_at"),
                   redeemedAt: try row.get("redeemed_at", as: Int64?.self), redeemedBy: try row.get("redeemed_by", as: String?.self))
    }

    /// Redeems an invitation for a verified consent in one transaction: single
    /// use, unexpired, then the device's keys are locked and each requested
    /// scope other than push is granted.
    ///
    /// - Returns: the scopes granted here.
    public func redeemInvitation(tokenHash: [UInt8], consent: ManagementConsent) async throws -> [ManagementScope] {
        let now = clock()
        return try await database.transaction { c in
            guard let row = try c.queryRow("SELECT * FROM invitations WHERE token_hash = ?", tokenHash) else {
                throw OutpostError(.pairing, "unknown invitation token")
            }
            let invitation = try Self.invitation(row)
            guard invitation.redeemedAt == nil else { throw OutpostError(.pairing, "the invitation was already used") }
            guard now <= invitation.expiresAt else { throw OutpostError(.pairing, "the invitation has expired") }
            _ = try c.execute("UPDATE invitations SET redeemed_at = ?, redeemed_by = ? WHERE token_hash = ?", now, consent.deviceID,
                              tokenHash)
            try self.lockDevice(c, deviceID: consent.deviceID, signingKey: consent.deviceSigningKey,
                                agreementKey: consent.deviceAgreementKey, now: now)
            let granted = consent.scopes.filter { $0 != .push }.sorted()
            for scope in granted {
                try Self.grant(c, scope, to: consent.deviceID, mailboxIDs: scope == .content ? invitation.mailboxIDs : nil,
                               by: "invitation", now: now)
            }
            try Self.log(c, at: now, actor: consent.deviceID, action: "redeem",
                         detail: "granted \(granted.map(\.rawValue).joined(separator: ","))")
            return granted
        }
    }

    // MARK: Administrator log

    /// Records a change and who made it.
    public func logChange(actor: String, action: String, detail: String) async throws {
        let now = clock()
        try await database.transaction { c in try Self.log(c, at: now, actor: actor, action: action, detail: detail) }
    }

    static func log(_ c: SQLiteConnection, at: Int64, actor: String, action: String, detail: String) throws {
        _ = try c.execute("INSERT INTO admin_log (at, actor, action, detail) VALUES (?, ?, ?, ?)", at, actor, action,
                          String(detail.prefix(500)))
    }

    /// The latest changes, newest first.
    public func adminLog(limit: Int = 100) async throws -> [AdminLogEntry] {
        try await database.query("SELECT * FROM admin_log ORDER BY id DESC LIMIT ?", Int64(limit)).map { row in
            AdminLogEntry(id: try row.get("id"), at: try row.get("at"), actor: try row.get("actor"), action: try row.get("action"),
                          detail: try row.get("detail"))
        }
    }

    static func encodeIDs(_ ids: [Int64]?) -> String? { ids.map { $0.map(String.init).joined(separator: ",") } }
    static func decodeIDs(_ s: String?) -> [Int64]? { s.map { $0.split(separator: ",").compactMap { Int64($0) } } }
}
