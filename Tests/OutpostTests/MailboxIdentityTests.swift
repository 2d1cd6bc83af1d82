import Foundation
import MailwakeIMAP
import MailwakeSQLite
@testable import OutpostService
import TestSupport
import Testing

/// A mailbox id names one mailbox forever: ids are never reused, removing a
/// mailbox takes it out of every permission and invitation, so a device
/// limited to "Work" can never come to read a mailbox added later.
@Suite("Outpost: mailbox identity and permissions", .serialized, .awaitedCleanup)
struct MailboxIdentityTests {
    static func record(_ label: String) -> MailboxRecord {
        MailboxRecord(label: label, endpoint: IMAPEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS), username: "alice",
                      authentication: .password, folders: ["INBOX"])
    }

    static func withStore(_ body: (OutpostStore) async throws -> Void) async throws {
        let dir = StoreTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let (store, _) = try await OutpostStore.initialize(dir)
        do { try await body(store) } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    static func addDevice(_ store: OutpostStore, _ id: String) async throws {
        _ = try await store.database.execute("""
                                             INSERT INTO devices (device_id, signing_key, agreement_key, added_at) VALUES (?, X'01', \
                                             X'02', 0)
                                             """, id)
    }

    @Test func aPermissionNeverMovesToAMailboxAddedLater() async throws {
        try await Self.withStore { store in
            let work = try await store.addMailbox(Self.record("Work"), secret: "w")
            try await Self.addDevice(store, "phone")
            try await store.grant(.content, to: "phone", mailboxIDs: [work.id], by: "test")
            let token = [UInt8](repeating: 7, count: 32)
            try await store.createInvitation(Invitation(tokenHash: token, scopes: [.content], mailboxIDs: [work.id], pairingID: nil,
                                                        createdAt: 0, expiresAt: Int64.max), actor: "test")
            #expect(try await store.removeMailbox(label: "Work"))
            let personal = try await store.addMailbox(Self.record("Personal"), secret: "p")
            #expect(personal.id != work.id, "the id of a removed mailbox was handed to a new one")
            let permission = try #require(try await store.knownDevice("phone")?.permission(.content))
            #expect(!permission.covers(mailboxID: personal.id), "a device limited to Work can read Personal")
            #expect(permission.mailboxIDs == [], "the removed mailbox stays out, and the limit does not widen to all")
            #expect(try await store.invitation(tokenHash: token)?.mailboxIDs == [])
        }
    }

    @Test func removingAMailboxKeepsTheRestOfEachLimit() async throws {
        try await Self.withStore { store in
            let a = try await store.addMailbox(Self.record("A"), secret: "a")
            let b = try await store.addMailbox(Self.record("B"), secret: "b")
            try await Self.addDevice(store, "phone")
            try await Self.addDevice(store, "tablet")
            try await store.grant(.content, to: "phone", mailboxIDs: [a.id, b.id], by: "test")
            try await store.grant(.content, to: "tablet", by: "test")
            #expect(try await store.removeMailbox(label: "A"))
            #expect(try await store.knownDevice("phone")?.permission(.content)?.mailboxIDs == [b.id])
            #expect(try await store.knownDevice("tablet")?.permission(.content)?.mailboxIDs == nil, "an unlimited grant stays unlimited")
        }
    }

    @Test func removingAMailboxClosesItsPooledBodyConnections() async throws {
        let h = try await OutpostAPIHarness.start()
        let session = try await h.grant([.content, .manage], to: h.watch.device)
        let note = try await h.deliver(BodyReadingTests.newsletter())
        #expect(try await session.body(ref: try #require(note.ref)).status == .ok)
        let id = h.watch.mailbox.id
        #expect(await h.fetcher.idleConnectionCount(mailboxID: id) == 1, "the body read left a pooled connection")
        let removed = try await session.send(.delete, "/v1/mailboxes/\(id)")
        #expect(removed.status.code == 204, "\(removed.text)")
        #expect(await h.fetcher.idleConnectionCount(mailboxID: id) == 0, "the removed mailbox's connection is still pooled")
        #expect(try await session.body(ref: try #require(note.ref)).status.code == 404)
    }

    @Test func theMigrationStopsReuseAndDropsIdsThatNamedAnotherMailbox() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await SQLiteDatabase.open(path: scratch.file("outpost.db"))
        _ = try await SQLiteMigrator(Array(OutpostMigrations.all.prefix(6))).migrate(database)
        let insert = """
            INSERT INTO mailboxes (id, label, host, port, security, username, auth, secret_sealed, folders, created_at, updated_at)
            VALUES (?, ?, 'imap.example.org', 993, 'implicit', 'alice', 'password', X'', 'INBOX', ?, ?)
            """
        // What revision-6 databases hold: Work (1) and Old (2) existed, a device was limited to
        // [1, 2] at t=100 and an invitation offered [2]; Old was removed and its id went to
        // Personal (2, added at t=200); mailbox 3 was removed and never reused.
        _ = try await database.execute(insert, Int64(1), "Work", Int64(10), Int64(10))
        _ = try await database.execute(insert, Int64(2), "Personal", Int64(200), Int64(200))
        _ = try await database.execute("""
                                       INSERT INTO folder_state (mailbox_id, folder, uid_validity, last_uid, state_since, updated_at) \
                                       VALUES (1, 'INBOX', 7, 42, 0, 0)
                                       """)
        _ = try await database.execute("INSERT INTO rules (mailbox_id, folder, updated_at) VALUES (1, 'INBOX', 0)")
        _ = try await database.execute("""
                                       INSERT INTO devices (device_id, signing_key, agreement_key, added_at) VALUES ('phone', X'01', \
                                       X'02', 0)
                                       """)
        _ = try await database.execute("""
                                       INSERT INTO permissions (device_id, scope, mailbox_ids, granted_at, granted_by) VALUES \
                                       ('phone', 'content', '1,2,3', 100, 't')
                                       """)
        _ = try await database.execute("""
                                       INSERT INTO invitations (token_hash, scopes, mailbox_ids, created_at, expires_at) VALUES \
                                       (X'AA', 'content', '2', 100, 999)
                                       """)

        #expect(try await SQLiteMigrator(Array(OutpostMigrations.all.prefix(7))).migrate(database) == [7])
        #expect(try await database.queryValue("SELECT mailbox_ids FROM permissions", as: String.self) == "1")
        #expect(try await database.queryValue("SELECT mailbox_ids FROM invitations", as: String.self) == "")
        #expect(try await database.queryValue("SELECT last_uid FROM folder_state WHERE mailbox_id = 1", as: Int64.self) == 42,
                "folder state survived the rebuild")
        #expect(try await database.queryValue("SELECT COUNT(*) FROM rules WHERE mailbox_id = 1", as: Int64.self) == 1,
                "rules survived the rebuild")
        _ = try await database.execute("DELETE FROM mailboxes WHERE id = 2")
        _ = try await database.execute(insert.replacingOccurrences(of: "(id, label",
                                                                   with: "(label").replacingOccurrences(of: "VALUES (?, ?",
                                                                       with: "VALUES (?"),
                                       "Next", Int64(300), Int64(300))
        #expect(try await database.queryValue("SELECT id FROM mailboxes WHERE label = 'Next'", as: Int64.self) == 4,
                "above every id ever named")
        _ = try await database.execute("DELETE FROM mailboxes WHERE id = 1")
        #expect(try await database.queryValue("SELECT COUNT(*) FROM folder_state", as: Int64.self) == 0, "the foreign key still cascades")
        try await database.close()
    }
}
