import MailwakePostgres
import MailwakeServiceSupport

/// The accounts schema. Append new migrations; never edit an applied one.
enum AccountsMigrations {
    static let all: [PostgresMigration] = [
        PostgresMigration(version: 1, name: "devices, outposts, purchases, diagnostics", sql: """
            CREATE TABLE devices (
                device_id text PRIMARY KEY,
                signing_key bytea NOT NULL,
                agreement_key bytea NOT NULL,
                apns_token text NOT NULL,
                apns_environment text NOT NULL CHECK (apns_environment IN ('production', 'sandbox')),
                apns_token_updated_at bigint NOT NULL,
                bundle_id text NOT NULL,
                app_version text NOT NULL,
                push_to_start_token text,
                created_at bigint NOT NULL,
                updated_at bigint NOT NULL,
                deleted_at bigint,
                blocked_at bigint,
                block_reason text
            );
            CREATE TABLE device_sessions (
                session_id text PRIMARY KEY,
                device_id text NOT NULL REFERENCES devices (device_id) ON DELETE CASCADE,
                created_at bigint NOT NULL,
                last_seen_at bigint NOT NULL,
                app_version text NOT NULL,
                client_address text NOT NULL,
                revoked_at bigint
            );
            CREATE INDEX device_sessions_device ON device_sessions (device_id, last_seen_at DESC);
            CREATE TABLE live_activity_tokens (
                device_id text NOT NULL REFERENCES devices (device_id) ON DELETE CASCADE,
                activity_id text NOT NULL,
                token text NOT NULL,
                updated_at bigint NOT NULL,
                PRIMARY KEY (device_id, activity_id)
            );
            CREATE TABLE outposts (
                outpost_id text PRIMARY KEY,
                public_key bytea NOT NULL,
                created_at bigint NOT NULL,
                last_seen_at bigint NOT NULL,
                blocked_at bigint,
                block_reason text
            );
            CREATE TABLE app_store_transactions (
                original_transaction_id text PRIMARY KEY,
                last_transaction_id text NOT NULL,
                product_id text NOT NULL,
                environment text NOT NULL,
                purchased_at bigint NOT NULL,
                expires_at bigint,
                revoked_at bigint,
                signed_at_ms bigint NOT NULL,
                updated_at bigint NOT NULL
            );
            CREATE TABLE purchase_links (
                original_transaction_id text NOT NULL REFERENCES app_store_transactions (original_transaction_id) ON DELETE CASCADE,
                device_id text NOT NULL REFERENCES devices (device_id) ON DELETE CASCADE,
                linked_at bigint NOT NULL,
                PRIMARY KEY (device_id, original_transaction_id)
            );
            CREATE TABLE app_store_notifications (
                notification_uuid text PRIMARY KEY,
                notification_type text NOT NULL,
                subtype text,
                received_at bigint NOT NULL
            );
            CREATE TABLE delivery_diagnostics (
                id bigserial PRIMARY KEY,
                device_id text NOT NULL,
                pairing_id text NOT NULL,
                event_id text NOT NULL,
                status text NOT NULL,
                apns_reason text,
                occurred_at bigint NOT NULL,
                recorded_at bigint NOT NULL
            );
            CREATE INDEX delivery_diagnostics_device ON delivery_diagnostics (device_id, occurred_at DESC);
            CREATE INDEX delivery_diagnostics_recorded ON delivery_diagnostics (recorded_at);
            """ + "\n" + PostgresNonceStore.migrationSQL),
        PostgresMigration(version: 2, name: "device recovery after deletion, devices per purchase", sql: """
            ALTER TABLE devices ADD COLUMN recovery_digest bytea;
            CREATE INDEX purchase_links_original ON purchase_links (original_transaction_id);
            """),
    ]
}
