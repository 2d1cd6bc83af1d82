import MailwakeProtocol

/// How the management API writes the outpost's records (never a secret).
enum ManagementJSON {
    static func mailbox(_ w: inout JSONWriter, _ m: MailboxRecord, states: [FolderState]) {
        w.beginObject()
        w.int("id", m.id)
        w.string("label", m.label)
        w.string("host", m.endpoint.host)
        w.int("port", Int64(m.endpoint.port))
        w.string("tls", m.endpoint.security.rawValue)
        w.string("user", m.username)
        w.string("auth", m.authentication.rawValue)
        w.int("max_connections", Int64(m.maxConnections))
        w.bool("enabled", m.enabled)
        w.beginArray("folders")
        for folder in m.folders {
            let state = states.first { $0.mailboxID == m.id && $0.folder == folder }
            w.beginObject()
            w.string("name", folder)
            w.string("state", state?.watchState.rawValue ?? "not-watched")
            if let error = state?.lastError { w.string("error", error) }
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    static func rule(_ w: inout JSONWriter, _ r: NotificationRule) {
        w.beginObject()
        if let id = r.mailboxID { w.int("mailbox_id", id) } else { w.raw("mailbox_id", Array("null".utf8)) }
        if let folder = r.folder { w.string("folder", folder) } else { w.raw("folder", Array("null".utf8)) }
        w.bool("enabled", r.enabled)
        if let q = r.quietHours { w.string("quiet_hours", NotificationRule.formatQuietHours(q)) } else { w.raw("quiet_hours",
            Array("null".utf8)) }
        strings(&w, "allow", r.allowSenders)
        strings(&w, "deny", r.denySenders)
        strings(&w, "show", NotificationRule.Field.allCases.filter { r.show.contains($0) }.map(\.rawValue))
        w.endObject()
    }

    static func channel(_ w: inout JSONWriter, _ c: ChannelRecord) {
        w.beginObject()
        w.int("id", c.id)
        w.string("name", c.name)
        w.string("kind", c.kind.rawValue)
        w.string("url", c.url)
        w.bool("enabled", c.enabled)
        if let reason = c.disabledReason { w.string("disabled_reason", reason) }
        w.endObject()
    }

    static func device(_ w: inout JSONWriter, _ d: KnownDevice, pairings: [PairedDevice]) {
        w.beginObject()
        w.string("device_id", d.deviceID)
        w.string("fingerprint", d.fingerprint)
        w.int("added_at", d.addedAt)
        strings(&w, "scopes", d.scopes.map(\.rawValue))
        w.beginArray("permissions")
        for p in d.permissions where p.revokedAt == nil {
            w.beginObject()
            w.string("scope", p.scope.rawValue)
            if let ids = p.mailboxIDs {
                w.beginArray("mailbox_ids")
                for id in ids { w.int(nil, id) }
                w.endArray()
            } else {
                w.raw("mailbox_ids", Array("null".utf8))
            }
            w.int("granted_at", p.grantedAt)
            w.string("granted_by", p.grantedBy)
            w.endObject()
        }
        w.endArray()
        w.beginArray("pairings")
        for p in pairings where p.deviceID == d.deviceID {
            w.beginObject()
            w.string("pairing_id", p.pairingID)
            w.bool("active", p.active)
            w.int("paired_at", p.pairedAt)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    static func history(_ w: inout JSONWriter, _ e: HistoryEntry) {
        w.beginObject()
        w.int("id", e.id)
        w.string("mailbox", e.mailbox)
        w.string("folder", e.folder)
        w.string("sender", e.sender)
        w.string("subject_summary", e.subjectSummary)
        w.int("created_at", e.createdAt)
        if let received = e.mailReceivedAt { w.int("mail_received_at", received) }
        w.beginArray("deliveries")
        for d in e.devices {
            w.beginObject()
            w.string("device_id", d.deviceID)
            w.string("status", d.status)
            // The chain of PROTOCOL.md §13, each time once it is known.
            if let t = d.acceptedAt { w.int("accepted_at", t) }
            if let t = d.sentAt { w.int("sent_at", t) }
            if let t = d.displayedAt { w.int("displayed_at", t) }
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    static func change(_ w: inout JSONWriter, _ e: AdminLogEntry) {
        w.beginObject()
        w.int("id", e.id)
        w.int("at", e.at)
        w.string("actor", e.actor)
        w.string("action", e.action)
        w.string("detail", e.detail)
        w.endObject()
    }

    static func strings(_ w: inout JSONWriter, _ key: String, _ values: [String]) {
        w.beginArray(key)
        for v in values { w.string(nil, v) }
        w.endArray()
    }
}
