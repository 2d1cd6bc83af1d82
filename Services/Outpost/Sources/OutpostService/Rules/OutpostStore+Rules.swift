import MailwakeSQLite

extension OutpostStore {
    /// Creates or replaces the rule of its scope.
    public func setRule(_ rule: NotificationRule) async throws {
        let now = clock()
        let r = rule
        try await database.transaction { c in
            _ = try c.execute("DELETE FROM rules WHERE COALESCE(mailbox_id, 0) = ? AND COALESCE(folder, '') = ?", r.mailboxID ?? 0,
                              r.folder ?? "")
            _ = try c.execute("""
                INSERT INTO rules (mailbox_id, folder, enabled, quiet_start, quiet_end, allow_senders, deny_senders, show_fields,
                    updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, r.mailboxID, r.folder, r.enabled ? 1 : 0, r.quietHours.map { Int64($0.start) }, r.quietHours.map { Int64($0.end) },
                              r.allowSenders.joined(separator: "\n"), r.denySenders.joined(separator: "\n"),
                              NotificationRule.Field.allCases.filter { r.show.contains($0) }.map(\.rawValue).joined(separator: ","), now)
        }
    }

    /// Removes the rule of a scope; false when there was none.
    public func removeRule(mailboxID: Int64?, folder: String?) async throws -> Bool {
        try await database.execute("DELETE FROM rules WHERE COALESCE(mailbox_id, 0) = ? AND COALESCE(folder, '') = ?", mailboxID ?? 0,
                                   folder ?? "") > 0
    }

    public func rules() async throws -> [NotificationRule] {
        try await database.query("SELECT * FROM rules ORDER BY COALESCE(mailbox_id, 0), COALESCE(folder, '')").map { row in
            var rule = NotificationRule(mailboxID: try row.get("mailbox_id", as: Int64?.self),
                                        folder: try row.get("folder", as: String?.self))
            rule.enabled = try row.get("enabled", as: Int64.self) != 0
            if let start = try row.get("quiet_start", as: Int64?.self), let end = try row.get("quiet_end", as: Int64?.self) {
                rule.quietHours = (Int(start), Int(end))
            }
            rule.allowSenders = (try row.get("allow_senders", as: String.self)).split(separator: "\n").map(String.init)
            rule.denySenders = (try row.get("deny_senders", as: String.self)).split(separator: "\n").map(String.init)
            rule.show = Set((try row.get("show_fields",
                                         as: String.self)).split(separator: ",")
                                             .compactMap { NotificationRule.Field(rawValue: String($0)) })
            return rule
        }
    }

    /// The rule that applies to a folder: the folder's, else the mailbox's, else the global one, else the default (notify everything).
    public func rule(mailboxID: Int64, folder: String) async throws -> NotificationRule {
        let all = try await rules()
        return all.first { $0.mailboxID == mailboxID && $0.folder == folder }
            ?? all.first { $0.mailboxID == mailboxID && $0.folder == nil }
            ?? all.first { $0.mailboxID == nil }
            ?? NotificationRule()
    }
}
