import MailwakePostgres
@testable import RelayService
import Testing

/// The queue's per-batch statements find their rows by key, whatever PostgreSQL's statistics say, in sessions with
/// the relay's planner settings: a plan chosen on a small or freshly analyzed table is cached on the connection and
/// kept as the table grows.
@Suite("Relay: the queue's statements find rows by key", .serialized)
struct QueuePlanTests {
    /// A queue as autovacuum's last ANALYZE saw it, `finished` deliveries and none due, then `due` new ones: the due
    /// index still lists every finished delivery (VACUUM has not removed their entries), while the statistics say
    /// that almost nothing is due.
    static func queueWithUnvacuumedFinishedRows(finished: Int, due: Int) async throws -> PostgresClient {
        let database = try await RelayTestDatabase.fresh(prefix: "relay_plans",
                                                         sessionSettings: RelayConfiguration.postgresSessionSettings)
        try await database.execute("ALTER TABLE deliveries SET (autovacuum_enabled = false)")
        try await insertQueued(database, from: 1, through: finished)
        try await database.execute("UPDATE deliveries SET status = 'sent', updated_ms = updated_ms + 1")
        try await database.execute("ANALYZE deliveries")
        try await insertQueued(database, from: finished + 1, through: finished + due)
        return database
    }

    /// Queued deliveries `event-<n>` of pairing `pairing-<n % 50>`, due at `n` ms.
    static func insertQueued(_ database: PostgresClient, from first: Int, through last: Int) async throws {
        try await database.execute(PostgresQuery(unsafeSQL: """
            INSERT INTO deliveries (pairing_id, event_id, outpost_id, device_id, kind, payload, envelope_hash, iat, deadline_at,
                                    status, next_attempt_ms, accepted_ms, updated_ms)
            SELECT 'pairing-' || (n % 50), 'event-' || n, 'outpost-' || (n % 50), 'device-' || (n % 50), 'notification',
                   '\\x00'::bytea, '\\x00'::bytea, 1, 2, 'queued', n, n, n
            FROM generate_series(\(first), \(last)) n
            """))
    }

    /// The plan PostgreSQL chooses for `sql`, prepared with parameter `types` and executed with `arguments`, as text.
    static func plan(of sql: String, types: String, arguments: String, in database: PostgresClient,
                     planCacheMode: String) async throws -> String {
        try await database.withConnection { connection in
            _ = try await connection.runScript("SET plan_cache_mode = \(planCacheMode); PREPARE checked(\(types)) AS \(sql);")
            let rows = try await connection.runScript("EXPLAIN EXECUTE checked(\(arguments))")
            _ = try await connection.runScript("DEALLOCATE checked; RESET plan_cache_mode")
            return try rows.map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
        }
    }

    @Test(arguments: ["force_generic_plan", "force_custom_plan"])
    func completingABatchReadsItsRowsByPrimaryKeyNotThroughTheDueIndex(planCacheMode: String) async throws {
        let database = try await Self.queueWithUnvacuumedFinishedRows(finished: 5000, due: 50)
        let plan = try await Self.plan(of: DeliveryQueue.completionSQL, types: "text[], text[], text[], int8[], int4[], text[], int8[]",
                                       arguments: "'{pairing-7}', '{event-5007}', '{sent}', '{0}', '{200}', '{NULL}', '{9}'",
                                       in: database, planCacheMode: planCacheMode)
        await database.close()
        #expect(plan.contains("Index Scan using deliveries_pkey on deliveries"), "\(plan)")
        #expect(plan.contains("Index Cond: ((pairing_id = u.pairing_id) AND (event_id = u.event_id))"), "\(plan)")
        #expect(!plan.contains("deliveries_due"), "\(plan)")
        #expect(!plan.contains("Seq Scan on deliveries"), "\(plan)")
    }

    @Test(arguments: ["force_generic_plan", "force_custom_plan"])
    func endingAPairingFindsItsDeliveriesByPrimaryKeyNotThroughTheDueIndex(planCacheMode: String) async throws {
        let database = try await Self.queueWithUnvacuumedFinishedRows(finished: 5000, due: 50)
        let plan = try await Self.plan(of: PairingStore.cancelDeliveriesSQL, types: "text, int8", arguments: "'pairing-7', 9",
                                       in: database, planCacheMode: planCacheMode)
        await database.close()
        #expect(plan.contains("Index Scan on deliveries_pkey") || plan.contains("Index Scan using deliveries_pkey"), "\(plan)")
        #expect(plan.contains("Index Cond: (pairing_id = "), "\(plan)")
        #expect(!plan.contains("deliveries_due"), "\(plan)")
        #expect(!plan.contains("Seq Scan on deliveries"), "\(plan)")
    }

    @Test(arguments: ["force_generic_plan", "force_custom_plan"])
    func aReceiptFindsItsDeliveriesByPrimaryKeyNotThroughAStatusIndex(planCacheMode: String) async throws {
        let database = try await Self.queueWithUnvacuumedFinishedRows(finished: 5000, due: 50)
        try await database.execute("UPDATE deliveries SET status = 'displayed' WHERE status = 'sent' AND updated_ms % 2 = 0")
        let plan = try await Self.plan(of: ReceiptStore.markSQL, types: "text, text[], text[], int8[], int8",
                                       arguments: "'device-7', '{pairing-7}', '{event-5007}', '{9}', 9",
                                       in: database, planCacheMode: planCacheMode)
        await database.close()
        #expect(plan.components(separatedBy: "Index Scan using deliveries_pkey on deliveries").count - 1 == 2, "\(plan)")
        #expect(!plan.contains("deliveries_finished"), "\(plan)")
        #expect(!plan.contains("deliveries_due"), "\(plan)")
        #expect(!plan.contains("Seq Scan on deliveries"), "\(plan)")
    }

    @Test func theFinishedStatusesAreTheTablesStatusesButQueuedAndSending() async throws {
        let database = try await RelayTestDatabase.fresh(prefix: "relay_plans")
        let check = try await database.query("""
            SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'deliveries_status_check'
            """).map { try $0.decode(String.self, at: 0) }.joined()
        await database.close()
        func quoted(_ text: String) -> Set<String> {
            Set(text.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
        }
        let all = quoted(check)
        #expect(all.isSuperset(of: ["queued", "sending", "sent"]), "\(check)")
        #expect(quoted(DeliveryQueue.finishedStatusesSQL) == all.subtracting(["queued", "sending"]), "\(check)")
    }

    @Test func theCompletionStatementLeavesDeliveriesAlreadyFinishedAsTheyWere() async throws {
        let database = try await Self.queueWithUnvacuumedFinishedRows(finished: 10, due: 2)
        try await database.execute("UPDATE deliveries SET status = 'displayed' WHERE event_id = 'event-2'")
        var b = PostgresBindings()
        b.append(PostgresArray(["pairing-1", "pairing-2", "pairing-11"]))
        b.append(PostgresArray(["event-1", "event-2", "event-11"]))
        b.append(PostgresArray(["failed", "failed", "sent"]))
        b.append(PostgresArray([Int64(0), 0, 0]))
        b.append(PostgresArray([Int32?.none, nil, 200]))
        b.append(PostgresArray([String?.none, nil, nil]))
        b.append(PostgresArray([Int64(5000), 5000, 5000]))
        try await database.execute(PostgresQuery(unsafeSQL: DeliveryQueue.completionSQL, bindings: b))
        let rows = try await database.query("""
            SELECT event_id, status, apns_status FROM deliveries WHERE event_id IN ('event-1', 'event-2', 'event-11')
            """)
        var found: [String: (String, Int32?)] = [:]
        for row in rows {
            let (event, status, apns) = try row.decode((String, String, Int32?).self)
            found[event] = (status, apns)
        }
        let outbox = try await database.query("SELECT array_to_string(event_ids, ' ') FROM diagnostics_outbox_batches")
            .map { try $0.decode(String.self, at: 0) }
        await database.close()
        #expect(found["event-1"]?.0 == "sent", "a finished delivery keeps its first outcome")
        #expect(found["event-2"]?.0 == "displayed", "a displayed delivery stays displayed")
        #expect(found["event-11"]?.0 == "sent" && found["event-11"]?.1 == 200)
        #expect(outbox == ["event-11"], "one outbox row for the statement, with the one outcome it finished")
    }

    @Test func aRateBucketsUpdateIsHeapOnly() async throws {
        let database = try await RelayTestDatabase.fresh(prefix: "relay_plans")
        let hot = try await database.withTransaction { tx in
            try await tx.execute("INSERT INTO rate_buckets (bucket, tokens, updated_ms, requested, granted) VALUES ('b', 10, 1, 0, 0)")
            for at in 2...4 {
                try await tx.execute(PostgresQuery(unsafeSQL: """
                    INSERT INTO rate_buckets AS r (bucket, tokens, updated_ms, requested, granted) VALUES ('b', 10, \(at), 1, 1)
                    \(RateBuckets.takeSQL(rate: "1", burst: "10"))
                    """))
            }
            return try await tx.query("SELECT pg_stat_get_xact_tuples_hot_updated('rate_buckets'::regclass)").scalar(Int.self)
        }
        await database.close()
        #expect(hot == 3, "no index covers the columns a take changes")
    }

    /// A device's catch-up log of `count` envelopes `event-<n>` of `pairing-1`, from `first` on.
    static func insertCatchUp(_ database: PostgresClient, from first: Int, count: Int) async throws {
        try await database.execute(PostgresQuery(unsafeSQL: """
            INSERT INTO catchup_envelopes (device_id, pairing_id, event_id, accepted_ms, envelope)
            SELECT 'device-1', 'pairing-1', 'event-' || n, n, '\\x00'::bytea FROM generate_series(\(first), \(first + count - 1)) n
            """))
    }

    /// Displayed deliveries and catch-up envelopes as ANALYZE last saw them (`analyzed`: none, a few or thousands),
    /// then thousands more of each that it has not seen: a generic plan made at any of these moments is kept.
    static func receiptTables(analyzed: String) async throws -> PostgresClient {
        let database = try await RelayTestDatabase.fresh(prefix: "relay_plans",
                                                         sessionSettings: RelayConfiguration.postgresSessionSettings)
        try await database.execute("ALTER TABLE deliveries SET (autovacuum_enabled = false)")
        try await database.execute("ALTER TABLE catchup_envelopes SET (autovacuum_enabled = false)")
        let seen = ["none": 0, "few": 30, "thousands": 5000][analyzed]!
        func add(from first: Int, count: Int) async throws {
            guard count > 0 else { return }
            try await insertQueued(database, from: first, through: first + count - 1)
            try await database.execute("""
                UPDATE deliveries SET status = 'displayed' WHERE accepted_ms BETWEEN \(Int64(first)) AND \(Int64(first + count - 1))
                """)
            try await insertCatchUp(database, from: first, count: count)
        }
        try await add(from: 1, count: seen)
        try await database.execute("ANALYZE deliveries")
        try await database.execute("ANALYZE catchup_envelopes")
        try await add(from: seen + 1, count: 5000)
        return database
    }

    @Test(arguments: ["force_generic_plan", "force_custom_plan"], ["none", "few", "thousands"])
    func aReceiptFindsItsRowsByKeyWhateverTheStatisticsSay(planCacheMode: String, analyzed: String) async throws {
        let database = try await Self.receiptTables(analyzed: analyzed)
        let plan = try await Self.plan(of: ReceiptStore.markSQL, types: "text, text[], text[], int8[], int8",
                                       arguments: "'device-1', '{pairing-1,pairing-1}', '{event-7,event-9}', '{7,9}', 9",
                                       in: database, planCacheMode: planCacheMode)
        await database.close()
        #expect(plan.components(separatedBy: "Index Scan using deliveries_pkey on deliveries").count - 1 == 2, "\(plan)")
        #expect(plan.contains("Index Scan using catchup_envelopes_event on catchup_envelopes"), "\(plan)")
        let byReceiptKey = plan.matches(of: /Index Cond: \(\(pairing_id = (i(?:_\d+)?)\.pairing_id\) AND \(event_id = \1\.event_id\)\)/)
        #expect(byReceiptKey.count == 3, "the update, the count and the catch-up look-up each by its receipt's key: \(plan)")
        #expect(plan.contains("Tid Scan on catchup_envelopes"), "\(plan)")
        #expect(!plan.contains("catchup_envelopes_device"), "\(plan)")
        #expect(!plan.contains("deliveries_finished"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
    }

    @Test func aReceiptsCommitWithoutAFlushEndsWithItsStatement() async throws {
        let database = try await RelayTestDatabase.fresh(prefix: "relay_plans",
                                                         sessionSettings: RelayConfiguration.postgresSessionSettings)
        try await Self.insertCatchUp(database, from: 1, count: 3)
        try await database.execute("""
            INSERT INTO pairings (pairing_id, outpost_id, outpost_key, relay_token_hash, expires_at, state, device_id, created_at)
            VALUES ('pairing-1', 'outpost-1', '\\x00', '\\x00', 0, 'active', 'device-1', 0)
            """)
        func receipt(_ event: String) -> PostgresQuery {
            ReceiptStore.markQuery(deviceID: "device-1", pairingIDs: ["pairing-1"], eventIDs: [event], shownAt: [2], nowMS: 9)
        }
        let (before, kinds, after, withinATransaction) = try await database.withConnection { connection in
            let before = try await connection.query("SHOW synchronous_commit").scalar(String.self)
            let kinds = try await connection.query(receipt("event-2"))
                .map { (try $0.decode(Int32.self, at: 0), try $0.decode(Int64.self, at: 1)) }
            let after = try await connection.query("SHOW synchronous_commit").scalar(String.self)
            let within = try await connection.withTransaction { tx in
                _ = try await tx.query(receipt("event-3"))
                return try await tx.query("SHOW synchronous_commit").scalar(String.self)
            }
            return (before, kinds, after, within)
        }
        let left = try await database.query("SELECT event_id FROM catchup_envelopes ORDER BY seq")
            .map { try $0.decode(String.self, at: 0) }
        await database.close()
        #expect(kinds.map(\.0) == [1, 2] && kinds.last?.1 == 1, "counts only, one envelope trimmed: \(kinds)")
        #expect(left == ["event-1"])
        #expect(withinATransaction == "off", "the statement sets its transaction's commit not to wait for the flush")
        #expect(before != "off" && after == before, "the session's next commits wait for the flush again")
    }
}
