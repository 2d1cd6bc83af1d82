import AccountsService
import MailwakeHTTPTypes
import MailwakePostgres
import TestSupport
import Testing

/// `DELETE /v1/devices/{id}` changes three tables in one transaction: all of it happens, or none.
@Suite("Accounts: device deletion", .serialized, .awaitedCleanup)
struct DeviceDeletionTests {
    /// What the deletion touches, as stored.
    struct Stored: Equatable {
        var deleted: Bool
        var hasToken: Bool
        var activeSessions: Int64
        var links: Int64
    }

    func stored(_ f: AccountsFixture, _ deviceID: String) async throws -> Stored {
        let row = try await f.app.database.query("""
            SELECT d.deleted_at IS NOT NULL, d.apns_token <> '',
                   (SELECT count(*) FROM device_sessions s WHERE s.device_id = d.device_id AND s.revoked_at IS NULL),
                   (SELECT count(*) FROM purchase_links l WHERE l.device_id = d.device_id)
            FROM devices d WHERE d.device_id = \(deviceID)
            """).single()
        let (deleted, hasToken, sessions, links) = try row.decode((Bool, Bool, Int64, Int64).self)
        return Stored(deleted: deleted, hasToken: hasToken, activeSessions: sessions, links: links)
    }

    /// A registered device with a session and a linked purchase.
    func linkedDevice(_ f: AccountsFixture) async throws -> AccountsFixture.Device {
        let device = try AccountsFixture.Device.make()
        #expect(try await f.register(device).status == .created)
        try await f.app.database.execute("""
            INSERT INTO app_store_transactions (original_transaction_id, last_transaction_id, product_id, environment, purchased_at,
                signed_at_ms, updated_at)
            VALUES ('2000000001', '2000000001', 'net.mailwake.push.monthly', 'Sandbox', \(f.clock), \(f.clock * 1000), \(f.clock))
            """)
        try await f.app.database.execute("""
            INSERT INTO purchase_links (original_transaction_id, device_id, linked_at) VALUES ('2000000001', \(device.id), \(f.clock))
            """)
        return device
    }

    @Test func aDeletionIsVisibleAllAtOnce() async throws {
        let f = try await AccountsFixture.start()
        let device = try await linkedDevice(f)
        #expect(try await stored(f, device.id) == Stored(deleted: false, hasToken: true, activeSessions: 1, links: 1))
        #expect(try await f.send(.delete, "/v1/devices/\(device.id)", signer: device.signing).status == .ok)
        #expect(try await stored(f, device.id) == Stored(deleted: true, hasToken: false, activeSessions: 0, links: 0))
    }

    @Test func aDeletionWhoseLastStepFailsLeavesTheDeviceAsItWas() async throws {
        let f = try await AccountsFixture.start()
        let device = try await linkedDevice(f)
        // The purchase unlink, the deletion's last statement, fails.
        try await f.app.database.withConnection { connection in
            _ = try await connection.runScript("""
                CREATE FUNCTION refuse_unlink() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION
                    'unlink refused by the test'; END $$;
                CREATE TRIGGER refuse_unlink BEFORE DELETE ON purchase_links FOR EACH STATEMENT EXECUTE FUNCTION refuse_unlink();
                """)
        }
        let failed = try await f.send(.delete, "/v1/devices/\(device.id)", signer: device.signing)
        #expect(failed.status == .internalServerError)
        #expect(try await stored(f, device.id) == Stored(deleted: false, hasToken: true, activeSessions: 1, links: 1),
                "the device update and the session revocation before the failed unlink are rolled back")

        try await f.app.database.execute("DROP TRIGGER refuse_unlink ON purchase_links")
        #expect(try await f.send(.delete, "/v1/devices/\(device.id)", signer: device.signing).status == .ok, "the session still works")
        #expect(try await stored(f, device.id) == Stored(deleted: true, hasToken: false, activeSessions: 0, links: 0))
    }
}
