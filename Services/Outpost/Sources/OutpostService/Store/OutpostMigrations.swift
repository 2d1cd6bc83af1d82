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
    ]
}
