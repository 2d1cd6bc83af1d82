import MailwakePostgres
@testable import RelayService
import Testing

/// Migration 10 on a large relay whose operator built the catch-up log's event index first, without blocking writes
/// (docs/operations.md, "Upgrades and migrations").
@Suite("Relay: the catch-up index built before its migration")
struct CatchUpIndexMigrationTests {
    @Test func theMigrationKeepsAnIndexBuiltConcurrentlyBeforeIt() async throws {
        let database = try await RelayTestDatabase.fresh(prefix: "relay_migration",
                                                         migrations: RelayMigrations.all.filter { $0.version < 10 })
        try await database.execute("""
            CREATE INDEX CONCURRENTLY IF NOT EXISTS catchup_envelopes_event ON catchup_envelopes (pairing_id, event_id)
            """)
        let applied = try await PostgresMigrator(RelayMigrations.all, logger: .disabled).migrate(database)
        let indexes = try await database.query("""
            SELECT i.indisvalid, pg_get_indexdef(i.indexrelid) FROM pg_index i
            WHERE i.indrelid = 'catchup_envelopes'::regclass AND i.indexrelid::regclass::text = 'catchup_envelopes_event'
            """).map { (try $0.decode(Bool.self, at: 0), try $0.decode(String.self, at: 1)) }
        await database.close()
        #expect(applied.contains(10))
        #expect(indexes.count == 1 && indexes.first?.0 == true, "\(indexes)")
        #expect(indexes.first?.1.hasSuffix("(pairing_id, event_id)") == true, "\(indexes)")
    }
}
