import MailwakePostgres

/// The `outpost_heartbeats` table: an outpost's last heartbeat and the alerts its transitions queue.
struct HeartbeatStore: Sendable {
    let database: PostgresClient

    /// Stores the heartbeat and, in the same transaction under the row lock,
    /// queues (when `queueAlerts`) `outpost-back` (the outpost was silent)
    /// and `mailbox-failing` (the failing count rose from 0); returns the alerts queued.
    func record(outpostID: String, _ body: HeartbeatBody, nowMS: Int64, queueAlerts: Bool,
                maxAge: Int64) async throws -> [SystemAlert.Kind] {
        try await database.withTransaction { connection in
            let (wasSilent, failingBefore) = try await Self.upsert(outpostID: outpostID, body, nowMS: nowMS, on: connection)
            guard queueAlerts else { return [] }
            var queued: [SystemAlert.Kind] = []
            if wasSilent {
                try await SystemAlertQueue.queue(SystemAlert(kind: .outpostBack, outpostID: outpostID, since: nowMS / 1000),
                                                 on: connection, nowMS: nowMS, maxAge: maxAge)
                queued.append(.outpostBack)
            }
            if failingBefore == 0, body.failing > 0 {
                try await SystemAlertQueue.queue(SystemAlert(kind: .mailboxFailing, outpostID: outpostID, since: nowMS / 1000,
                                                             failing: body.failing),
                                                 on: connection, nowMS: nowMS, maxAge: maxAge)
                queued.append(.mailboxFailing)
            }
            return queued
        }
    }

    /// Writes the heartbeat; returns whether the outpost was silent and its failing count before.
    private static func upsert(outpostID: String, _ body: HeartbeatBody, nowMS: Int64,
                               on connection: PostgresConnection) async throws -> (wasSilent: Bool, failingBefore: Int) {
        while true {
            // The common case, one statement: the row's previous state and count
            // (read under its row lock by the subquery) and the update.
            if let row = try await connection.query("""
                UPDATE outpost_heartbeats h SET last_seen_ms = GREATEST(h.last_seen_ms, \(nowMS)), mailboxes = \(Int64(body.mailboxes)),
                    failing = \(Int64(body.failing)), state = 'alive', silent_at_ms = NULL
                FROM (SELECT outpost_id, state, failing FROM outpost_heartbeats WHERE outpost_id = \(outpostID) FOR UPDATE) before
                WHERE h.outpost_id = before.outpost_id
                RETURNING before.state, before.failing
                """).first {
                let (state, failing) = try row.decode((String, Int32).self)
                return (state == "silent", Int(failing))
            }
            // The outpost's first heartbeat; should another instance insert it first, update that row.
            let inserted = try await connection.execute("""
                INSERT INTO outpost_heartbeats (outpost_id, last_seen_ms, mailboxes, failing, state)
                VALUES (\(outpostID), \(nowMS), \(Int64(body.mailboxes)), \(Int64(body.failing)), 'alive')
                ON CONFLICT (outpost_id) DO NOTHING
                """)
            if inserted == 1 { return (false, 0) }
        }
    }
}
