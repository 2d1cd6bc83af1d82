import MailwakeSQLite

/// The outpost schema. Append new migrations; never edit an applied one.
/// Times are Unix seconds. Secrets are never stored in clear: `*_sealed`
/// columns hold `SecretBox` values.
enum OutpostMigrations {
    static let all: [SQLiteMigration] = [
        SQLiteMigration(version: 1, name: "identity, settings, pairings, deliveries, history", sql: """
            CREATE TABLE identity (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                outpost_id TEXT NOT NULL,
                public_key BLOB NOT NULL,
                private_key_sealed BLOB NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE settings (
                name TEXT PRIMARY KEY,
                value TEXT,
                value_sealed BLOB,
                updated_at INTEGER NOT NULL,
                CHECK ((value IS NULL) <> (value_sealed IS NULL))
            );
            CREATE TABLE pairings (
                pairing_id TEXT PRIMARY KEY,
                relay_url TEXT NOT NULL,
                environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
                device_id TEXT NOT NULL,
                device_signing_key BLOB NOT NULL,
                device_agreement_key BLOB NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('active', 'unpaired')),
                paired_at INTEGER NOT NULL,
                unpaired_at INTEGER
            );
            CREATE INDEX pairings_device ON pairings (device_id);
            CREATE TABLE history (
                id INTEGER PRIMARY KEY,
                event_id TEXT NOT NULL,
                mailbox TEXT NOT NULL,
                folder TEXT NOT NULL,
                sender TEXT NOT NULL,
                subject_summary TEXT NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX history_created ON history (created_at);
            CREATE TABLE deliveries (
                pairing_id TEXT NOT NULL REFERENCES pairings (pairing_id),
                event_id TEXT NOT NULL,
                history_id INTEGER REFERENCES history (id) ON DELETE SET NULL,
                envelope BLOB NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'queued', 'sent', 'failed', 'expired')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                last_error TEXT,
                PRIMARY KEY (pairing_id, event_id)
            );
            CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'queued');
            CREATE INDEX deliveries_history ON deliveries (history_id);
            """),
        SQLiteMigration(version: 2, name: "mailboxes and folder state", sql: """
            CREATE TABLE mailboxes (
                id INTEGER PRIMARY KEY,
                label TEXT NOT NULL UNIQUE,
                host TEXT NOT NULL,
                port INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
                security TEXT NOT NULL CHECK (security IN ('implicit', 'starttls', 'none')),
                ca_file TEXT,
                username TEXT NOT NULL,
                auth TEXT NOT NULL CHECK (auth IN ('password', 'oauth2')),
                secret_sealed BLOB NOT NULL,
                folders TEXT NOT NULL,
                max_connections INTEGER NOT NULL DEFAULT 10,
                enabled INTEGER NOT NULL DEFAULT 1,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE TABLE folder_state (
                mailbox_id INTEGER NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
                folder TEXT NOT NULL,
                uid_validity INTEGER,
                last_uid INTEGER,
                watch_state TEXT NOT NULL DEFAULT 'starting',
                last_error TEXT,
                state_since INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (mailbox_id, folder)
            );
            """),
        SQLiteMigration(version: 3, name: "notification rules", sql: """
            CREATE TABLE rules (
                id INTEGER PRIMARY KEY,
                mailbox_id INTEGER REFERENCES mailboxes (id) ON DELETE CASCADE,
                folder TEXT,
                enabled INTEGER NOT NULL DEFAULT 1,
                quiet_start INTEGER CHECK (quiet_start BETWEEN 0 AND 1439),
                quiet_end INTEGER CHECK (quiet_end BETWEEN 0 AND 1439),
                allow_senders TEXT NOT NULL DEFAULT '',
                deny_senders TEXT NOT NULL DEFAULT '',
                show_fields TEXT NOT NULL DEFAULT 'sender,subject,code',
                updated_at INTEGER NOT NULL,
                CHECK (folder IS NULL OR mailbox_id IS NOT NULL),
                CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
            );
            CREATE UNIQUE INDEX rules_scope ON rules (COALESCE(mailbox_id, 0), COALESCE(folder, ''));
            """),
        SQLiteMigration(version: 4, name: "channels and their deliveries", sql: """
            CREATE TABLE channels (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                kind TEXT NOT NULL CHECK (kind IN ('bark', 'pushover', 'webhook')),
                url TEXT NOT NULL,
                options TEXT NOT NULL DEFAULT '{}',
                secret_sealed BLOB NOT NULL,
                allow_private INTEGER NOT NULL DEFAULT 0,
                enabled INTEGER NOT NULL DEFAULT 1,
                disabled_reason TEXT,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE TABLE channel_deliveries (
                channel_id INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
                event_id TEXT NOT NULL,
                history_id INTEGER REFERENCES history (id) ON DELETE SET NULL,
                payload_sealed BLOB NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'expired')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                last_error TEXT,
                PRIMARY KEY (channel_id, event_id)
            );
            CREATE INDEX channel_deliveries_due ON channel_deliveries (next_attempt_at) WHERE status = 'pending';
            """),
        SQLiteMigration(version: 5, name: "live activities", sql: """
            ALTER TABLE pairings ADD COLUMN live_activities TEXT NOT NULL DEFAULT 'on' CHECK (live_activities IN ('on', 'off',
                'unavailable'));
            ALTER TABLE deliveries ADD COLUMN kind TEXT NOT NULL DEFAULT 'notification'
                CHECK (kind IN ('notification', 'live-activity-start', 'live-activity-end'));
            CREATE TABLE live_activities (
                pairing_id TEXT NOT NULL REFERENCES pairings (pairing_id),
                activity_id TEXT NOT NULL,
                mailbox_id INTEGER,
                folder TEXT,
                uid_validity INTEGER,
                uid INTEGER,
                content_sealed BLOB NOT NULL,
                started_at INTEGER NOT NULL,
                end_at INTEGER NOT NULL,
                ended_at INTEGER,
                end_reason TEXT,
                PRIMARY KEY (pairing_id, activity_id)
            );
            CREATE INDEX live_activities_open ON live_activities (end_at) WHERE ended_at IS NULL;
            CREATE INDEX live_activities_message ON live_activities (mailbox_id, folder) WHERE ended_at IS NULL;
            """),
        SQLiteMigration(version: 6, name: "devices, permissions, invitations", sql: """
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY,
                signing_key BLOB NOT NULL,
                agreement_key BLOB NOT NULL,
                added_at INTEGER NOT NULL
            );
            INSERT OR IGNORE INTO devices (device_id, signing_key, agreement_key, added_at)
                SELECT device_id, device_signing_key, device_agreement_key, MIN(paired_at) FROM pairings GROUP BY device_id;
            CREATE TABLE permissions (
                id INTEGER PRIMARY KEY,
                device_id TEXT NOT NULL REFERENCES devices (device_id),
                scope TEXT NOT NULL CHECK (scope IN ('manage', 'content')),
                mailbox_ids TEXT,
                granted_at INTEGER NOT NULL,
                granted_by TEXT NOT NULL,
                revoked_at INTEGER,
                revoked_by TEXT
            );
            CREATE UNIQUE INDEX permissions_active ON permissions (device_id, scope) WHERE revoked_at IS NULL;
            CREATE TABLE invitations (
                token_hash BLOB PRIMARY KEY,
                scopes TEXT NOT NULL,
                mailbox_ids TEXT,
                pairing_id TEXT,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                redeemed_at INTEGER,
                redeemed_by TEXT
            );
            CREATE TABLE request_nonces (
                key_id TEXT NOT NULL,
                nonce BLOB NOT NULL,
                expires_at INTEGER NOT NULL,
                PRIMARY KEY (key_id, nonce)
            ) WITHOUT ROWID;
            CREATE TABLE admin_log (
                id INTEGER PRIMARY KEY,
                at INTEGER NOT NULL,
                actor TEXT NOT NULL,
                action TEXT NOT NULL,
                detail TEXT NOT NULL DEFAULT ''
            );
            CREATE INDEX admin_log_at ON admin_log (at);
            """),
        // Mailbox ids name mailboxes in permissions, invitations and message
        // references: they must never be reused. `INTEGER PRIMARY KEY` alone
        // hands a deleted mailbox's id to the next one added; AUTOINCREMENT
        // does not. SQLite cannot add it in place, so the table is rebuilt:
        // its children (folder_state, rules) first, so that no drop cascades.
        // The sequence starts above every id anything still names, and lists
        // lose ids whose mailbox is gone or was added after the grant or
        // invitation (a reused id that named another mailbox before).
        SQLiteMigration(version: 7, name: "mailbox ids are never reused", sql: """
            CREATE TABLE mailboxes_v7 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                label TEXT NOT NULL UNIQUE,
                host TEXT NOT NULL,
                port INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
                security TEXT NOT NULL CHECK (security IN ('implicit', 'starttls', 'none')),
                ca_file TEXT,
                username TEXT NOT NULL,
                auth TEXT NOT NULL CHECK (auth IN ('password', 'oauth2')),
                secret_sealed BLOB NOT NULL,
                folders TEXT NOT NULL,
                max_connections INTEGER NOT NULL DEFAULT 10,
                enabled INTEGER NOT NULL DEFAULT 1,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            INSERT INTO mailboxes_v7 (id, label, host, port, security, ca_file, username, auth, secret_sealed, folders, max_connections,
                enabled,
                                      created_at, updated_at)
                SELECT id, label, host, port, security, ca_file, username, auth, secret_sealed, folders, max_connections, enabled,
                    created_at, updated_at
                FROM mailboxes;
            CREATE TABLE folder_state_v7 (
                mailbox_id INTEGER NOT NULL REFERENCES mailboxes_v7 (id) ON DELETE CASCADE,
                folder TEXT NOT NULL,
                uid_validity INTEGER,
                last_uid INTEGER,
                watch_state TEXT NOT NULL DEFAULT 'starting',
                last_error TEXT,
                state_since INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (mailbox_id, folder)
            );
            INSERT INTO folder_state_v7 (mailbox_id, folder, uid_validity, last_uid, watch_state, last_error, state_since, updated_at)
                SELECT mailbox_id, folder, uid_validity, last_uid, watch_state, last_error, state_since, updated_at FROM folder_state;
            CREATE TABLE rules_v7 (
                id INTEGER PRIMARY KEY,
                mailbox_id INTEGER REFERENCES mailboxes_v7 (id) ON DELETE CASCADE,
                folder TEXT,
                enabled INTEGER NOT NULL DEFAULT 1,
                quiet_start INTEGER CHECK (quiet_start BETWEEN 0 AND 1439),
                quiet_end INTEGER CHECK (quiet_end BETWEEN 0 AND 1439),
                allow_senders TEXT NOT NULL DEFAULT '',
                deny_senders TEXT NOT NULL DEFAULT '',
                show_fields TEXT NOT NULL DEFAULT 'sender,subject,code',
                updated_at INTEGER NOT NULL,
                CHECK (folder IS NULL OR mailbox_id IS NOT NULL),
                CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
            );
            INSERT INTO rules_v7 (id, mailbox_id, folder, enabled, quiet_start, quiet_end, allow_senders, deny_senders, show_fields,
                updated_at)
                SELECT id, mailbox_id, folder, enabled, quiet_start, quiet_end, allow_senders, deny_senders, show_fields, updated_at
                    FROM rules;
            DROP TABLE folder_state;
            DROP TABLE rules;
            DROP TABLE mailboxes;
            ALTER TABLE mailboxes_v7 RENAME TO mailboxes;
            ALTER TABLE folder_state_v7 RENAME TO folder_state;
            ALTER TABLE rules_v7 RENAME TO rules;
            CREATE UNIQUE INDEX rules_scope ON rules (COALESCE(mailbox_id, 0), COALESCE(folder, ''));
            DELETE FROM sqlite_sequence WHERE name IN ('mailboxes', 'mailboxes_v7');
            INSERT INTO sqlite_sequence (name, seq) SELECT 'mailboxes', COALESCE(MAX(id), 0) FROM (
                SELECT id FROM mailboxes
                UNION ALL SELECT mailbox_id FROM live_activities WHERE mailbox_id IS NOT NULL
                UNION ALL SELECT CAST(j.value AS INTEGER) FROM permissions p, json_each('[' || p.mailbox_ids || ']') j
                    WHERE p.mailbox_ids IS NOT NULL AND json_valid('[' || p.mailbox_ids || ']')
                UNION ALL SELECT CAST(j.value AS INTEGER) FROM invitations i, json_each('[' || i.mailbox_ids || ']') j
                    WHERE i.mailbox_ids IS NOT NULL AND json_valid('[' || i.mailbox_ids || ']')
            );
            UPDATE permissions SET mailbox_ids = CASE WHEN json_valid('[' || mailbox_ids || ']') THEN COALESCE((
                    SELECT group_concat(m.id, ',') FROM json_each('[' || permissions.mailbox_ids || ']') j
                    JOIN mailboxes m ON m.id = j.value AND m.created_at <= permissions.granted_at), '') ELSE '' END
                WHERE mailbox_ids IS NOT NULL;
            UPDATE invitations SET mailbox_ids = CASE WHEN json_valid('[' || mailbox_ids || ']') THEN COALESCE((
                    SELECT group_concat(m.id, ',') FROM json_each('[' || invitations.mailbox_ids || ']') j
                    JOIN mailboxes m ON m.id = j.value AND m.created_at <= invitations.created_at), '') ELSE '' END
                WHERE mailbox_ids IS NOT NULL;
            """),
        // Watch coverage (issue 18): when each folder was last confirmed
        // watched, the HIGHESTMODSEQ its catch-up last saw (CONDSTORE), and
        // the recent periods it was not watched (a bounded number per folder).
        SQLiteMigration(version: 8, name: "watch coverage", sql: """
            ALTER TABLE folder_state ADD COLUMN last_confirmed_at INTEGER;
            ALTER TABLE folder_state ADD COLUMN highest_modseq INTEGER;
            CREATE TABLE folder_watch_gaps (
                id INTEGER PRIMARY KEY,
                mailbox_id INTEGER NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
                folder TEXT NOT NULL,
                started_at INTEGER NOT NULL,
                ended_at INTEGER,
                reason TEXT NOT NULL,
                CHECK (ended_at IS NULL OR ended_at >= started_at)
            );
            CREATE INDEX folder_watch_gaps_folder ON folder_watch_gaps (mailbox_id, folder, id);
            """),
        // Receipts (PROTOCOL.md §13): the per-delivery chain from the outpost's
        // own times (mail received: the message's INTERNALDATE, else its Date
        // header; noticed: history.created_at; relay accepted: when the relay
        // answered 202) and the relay's (APNs sent, displayed), and whether a
        // sent delivery is still followed for its receipt.
        SQLiteMigration(version: 9, name: "receipts: displayed and per-hop times", sql: """
            ALTER TABLE history ADD COLUMN mail_received_at INTEGER;
            ALTER TABLE deliveries ADD COLUMN accepted_at INTEGER;
            ALTER TABLE deliveries ADD COLUMN sent_at INTEGER;
            ALTER TABLE deliveries ADD COLUMN displayed_at INTEGER;
            ALTER TABLE deliveries ADD COLUMN awaiting_receipt INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX deliveries_receipt_due ON deliveries (next_attempt_at) WHERE awaiting_receipt = 1;
            """),
        // Sender authenticity and provider presets (issue 19): which receiving
        // servers' Authentication-Results the mailbox trusts (comma-separated
        // authserv-ids), its own IDLE renewal, and the preset it came from.
        SQLiteMigration(version: 10, name: "mailbox trust and presets", sql: """
            ALTER TABLE mailboxes ADD COLUMN trusted_authserv_ids TEXT NOT NULL DEFAULT '';
            ALTER TABLE mailboxes ADD COLUMN idle_restart_seconds INTEGER;
            ALTER TABLE mailboxes ADD COLUMN provider TEXT;
            """),
        // The UIDVALIDITY rule (issue 19): when each folder was last known in
        // sync (every message up to its position handled), and a keyed hash
        // (HMAC under a key derived from secret.key, never the Message-ID
        // itself) of each notified message's Message-ID, kept a bounded time,
        // so a resynchronized folder notifies what arrived since, once.
        SQLiteMigration(version: 12, name: "resynchronization after a UIDVALIDITY change", sql: """
            ALTER TABLE folder_state ADD COLUMN synced_at INTEGER;
            CREATE TABLE notified_message_ids (
                mailbox_id INTEGER NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
                digest BLOB NOT NULL,
                notified_at INTEGER NOT NULL,
                PRIMARY KEY (mailbox_id, digest)
            ) WITHOUT ROWID;
            CREATE INDEX notified_message_ids_age ON notified_message_ids (notified_at);
            """),
    ]
}
