import MailwakePostgres
import MailwakeServiceSupport

/// The relay schema. Append new migrations; never edit an applied one.
///
/// Times ending in `_ms` are Unix milliseconds, the others Unix seconds.
enum RelayMigrations {
    static let all: [PostgresMigration] = [
        PostgresMigration(version: 1, name: "pairings, deliveries, diagnostics outbox", sql: """
            CREATE TABLE pairings (
                pairing_id text PRIMARY KEY,
                outpost_id text NOT NULL,
                outpost_key bytea NOT NULL,
                credential_hash bytea NOT NULL,
                expires_at bigint NOT NULL,
                state text NOT NULL CHECK (state IN ('pending', 'consented', 'active', 'ended')),
                device_id text,
                consent bytea,
                created_at bigint NOT NULL,
                consented_at bigint,
                confirmed_at bigint,
                ended_at bigint,
                ended_by text
            );
            CREATE INDEX pairings_outpost ON pairings (outpost_id);
            CREATE INDEX pairings_device ON pairings (device_id) WHERE device_id IS NOT NULL;
            CREATE INDEX pairings_unconfirmed ON pairings (expires_at) WHERE state IN ('pending', 'consented');

            CREATE TABLE deliveries (
                pairing_id text NOT NULL,
                event_id text NOT NULL,
                outpost_id text NOT NULL,
                device_id text NOT NULL,
                kind text NOT NULL CHECK (kind IN ('notification', 'live-activity')),
                activity_id text,
                activity_event text,
                payload bytea NOT NULL,
                envelope_hash bytea NOT NULL,
                iat bigint NOT NULL,
                deadline_at bigint NOT NULL,
                status text NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'expired')),
                attempts integer NOT NULL DEFAULT 0,
                next_attempt_ms bigint NOT NULL,
                accepted_ms bigint NOT NULL,
                updated_ms bigint NOT NULL,
                claimed_by text,
                apns_status integer,
                apns_reason text,
                PRIMARY KEY (pairing_id, event_id)
            );
            CREATE INDEX deliveries_due ON deliveries (next_attempt_ms) WHERE status IN ('queued', 'sending');
            CREATE INDEX deliveries_finished ON deliveries (updated_ms) WHERE status IN ('sent', 'failed', 'expired');

            CREATE TABLE diagnostics_outbox (
                id bigserial PRIMARY KEY,
                device_id text NOT NULL,
                pairing_id text NOT NULL,
                event_id text NOT NULL,
                status text NOT NULL,
                apns_reason text,
                occurred_at bigint NOT NULL
            );
            """ + "\n" + PostgresNonceStore.migrationSQL),
        // Pairing revision 2 (PROTOCOL.md §9): the relay keeps SHA-256(relay_token),
        // never a hash of the credential itself. Unfinished revision-1 pairings
        // cannot complete under revision 2 and end here.
        PostgresMigration(version: 2, name: "pairing revision 2: relay token hash", sql: """
            ALTER TABLE pairings RENAME COLUMN credential_hash TO relay_token_hash;
            UPDATE pairings SET state = 'ended', ended_at = extract(epoch FROM now())::bigint, ended_by = 'revision-2-upgrade'
            WHERE state IN ('pending', 'consented');
            """),
        PostgresMigration(version: 3, name: "rate buckets shared by every instance", sql: """
            CREATE TABLE rate_buckets (
                bucket text PRIMARY KEY,
                tokens double precision NOT NULL,
                updated_ms bigint NOT NULL,
                requested integer NOT NULL,
                granted integer NOT NULL
            );
            CREATE INDEX rate_buckets_updated ON rate_buckets (updated_ms);
            """),
        // Catch-up (PROTOCOL.md §12): per device, the envelopes accepted for its
        // active pairings, exactly as submitted (ciphertext), in acceptance
        // order (`seq`). Written by the intake statement; pruned by
        // QueueMaintenance (CATCHUP_RETENTION, CATCHUP_LIMIT a device) and
        // when a pairing ends.
        PostgresMigration(version: 4, name: "catch-up log of accepted envelopes", sql: """
            CREATE TABLE catchup_envelopes (
                seq bigserial NOT NULL,
                device_id text NOT NULL,
                pairing_id text NOT NULL,
                event_id text NOT NULL,
                accepted_ms bigint NOT NULL,
                envelope bytea NOT NULL
            );
            CREATE INDEX catchup_envelopes_device ON catchup_envelopes (device_id, seq);
            CREATE INDEX catchup_envelopes_accepted ON catchup_envelopes (accepted_ms);
            """),
        // PROTOCOL.md §14: the last heartbeat per outpost, its alert state
        // (the transition that queues an alert happens once, under the row
        // lock), and relay-authored `system` deliveries in the same queue.
        PostgresMigration(version: 5, name: "outpost heartbeats and silence alerts", sql: """
            CREATE TABLE outpost_heartbeats (
                outpost_id text PRIMARY KEY,
                last_seen_ms bigint NOT NULL,
                mailboxes integer NOT NULL,
                failing integer NOT NULL,
                state text NOT NULL CHECK (state IN ('alive', 'silent')),
                silent_at_ms bigint
            );
            CREATE INDEX outpost_heartbeats_alive ON outpost_heartbeats (last_seen_ms) WHERE state = 'alive';
            ALTER TABLE deliveries DROP CONSTRAINT deliveries_kind_check;
            ALTER TABLE deliveries ADD CONSTRAINT deliveries_kind_check CHECK (kind IN ('notification', 'live-activity', 'system'));
            """),
        // PROTOCOL.md §13: `displayed`, a final status after `sent`, set by a
        // device's receipt; `sent_ms` (APNs accepted the push) and
        // `displayed_ms` (the device's shown_at, clamped to [accepted, receipt])
        // are kept for the per-hop latency the outpost reads in its status.
        PostgresMigration(version: 6, name: "receipts: displayed status and per-hop times", sql: """
            ALTER TABLE deliveries ADD COLUMN sent_ms bigint, ADD COLUMN displayed_ms bigint;
            ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
            ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
                CHECK (status IN ('queued', 'sending', 'sent', 'displayed', 'failed', 'expired'));
            DROP INDEX deliveries_finished;
            CREATE INDEX deliveries_finished ON deliveries (updated_ms) WHERE status IN ('sent', 'displayed', 'failed', 'expired');
            """),
        // Heartbeats as heap-only (HOT) updates: an index on `last_seen_ms`, which
        // every heartbeat changes, made each one write new entries in both of the
        // table's indexes; the silence watch reads the table in a sequential scan
        // instead (10,000 rows in about 2 ms, every 15 s at most). Free space on
        // each page keeps the new row version next to the old one.
        PostgresMigration(version: 7, name: "heartbeats without an index on last_seen_ms", sql: """
            DROP INDEX outpost_heartbeats_alive;
            ALTER TABLE outpost_heartbeats SET (fillfactor = 50);
            """),
        // One APNs provider token for every instance (docs/relay.md, "One
        // provider token for all instances"): the current ES256 JWT per team
        // and key (a new key id starts a new row), and the lease under which
        // exactly one instance signs its successor; `generation` counts the
        // tokens published (renewal is compare-and-swap on it). `token` is ''
        // and `issued_at` 0 until the first is signed. The JWT, a bearer
        // credential for up to an hour, is stored sealed under a key derived
        // from the .p8 key (ProviderTokenStore, docs/security.md).
        PostgresMigration(version: 8, name: "shared APNs provider token with a renewal lease", sql: """
            CREATE TABLE apns_provider_tokens (
                team_id text NOT NULL,
                key_id text NOT NULL,
                generation bigint NOT NULL,
                token text NOT NULL,
                issued_at bigint NOT NULL,
                signed_by text NOT NULL,
                lease_holder text,
                lease_until bigint NOT NULL,
                PRIMARY KEY (team_id, key_id)
            );
            """),
        // PostgreSQL's work per envelope (docs/relay.md, "Fewer rows an
        // envelope"). A bucket's update touched an indexed column
        // (`updated_ms`), so each one wrote new entries in both of the table's
        // indexes; without that index, and with room on each page, it is a
        // heap-only update (maintenance prunes old buckets in a sequential
        // scan, once a run). Outcomes for accounts' diagnostics go out as one
        // row per outcomes' statement, its records in arrays, instead of a row
        // each. A row stays inline up to a page (about 70 records); a larger
        // one goes to TOAST uncompressed, since compressing ids and UUIDs cost
        // more CPU than it saved. `diagnostics_outbox` stays for one release:
        // the previous binary still writes it, and the reporter drains it first.
        PostgresMigration(version: 9, name: "heap-only bucket updates, diagnostics outbox in batches", sql: """
            DROP INDEX rate_buckets_updated;
            ALTER TABLE rate_buckets SET (fillfactor = 50);
            CREATE TABLE diagnostics_outbox_batches (
                id bigserial PRIMARY KEY,
                device_ids text[] NOT NULL,
                pairing_ids text[] NOT NULL,
                event_ids text[] NOT NULL,
                statuses text[] NOT NULL,
                apns_reasons text[] NOT NULL,
                occurred_at bigint[] NOT NULL
            ) WITH (toast_tuple_target = 8160);
            ALTER TABLE diagnostics_outbox_batches ALTER COLUMN device_ids SET STORAGE EXTERNAL,
                ALTER COLUMN pairing_ids SET STORAGE EXTERNAL, ALTER COLUMN event_ids SET STORAGE EXTERNAL,
                ALTER COLUMN statuses SET STORAGE EXTERNAL, ALTER COLUMN apns_reasons SET STORAGE EXTERNAL,
                ALTER COLUMN occurred_at SET STORAGE EXTERNAL;
            """),
        // A receipt removes its envelope from the catch-up log by event
        // (docs/relay.md, "Receipts find their catch-up envelope by key").
        // Through `catchup_envelopes_device` it read every version of the
        // device's log that VACUUM had not yet removed: a bitmap scan visits
        // each dead row again, receipt after receipt, between two vacuums.
        // Built in the migration's transaction, the index holds up writes to
        // the log, so intake, while it builds; a large deployment builds it
        // first with CREATE INDEX CONCURRENTLY (docs/operations.md), and then
        // this is a no-op.
        PostgresMigration(version: 10, name: "catch-up envelopes by event", sql: """
            CREATE INDEX IF NOT EXISTS catchup_envelopes_event ON catchup_envelopes (pairing_id, event_id);
            """),
    ]
}
