import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol

extension RelayApp {
    /// The most mailboxes a heartbeat may count.
    static let maxHeartbeatMailboxes = 100_000

    func addHeartbeatRoutes(to router: inout Router) {
        router.post("/v1/outposts/{outpost_id}/heartbeat") { [self] request, context in
            let outpostID = try context.parameter("outpost_id")
            let header = try gate.header(of: request)
            guard header.keyID == outpostID else { throw ProtocolError(.wrongKey, "keyid must be the outpost id of the path") }
            // The key pinned by the outpost's active pairings (every pairing of one outpost pins the same key);
            // an outpost whose pairings have all ended gets no row (QueueMaintenance prunes the one it had).
            guard let key = try await database.query("""
                SELECT outpost_key FROM pairings WHERE outpost_id = \(outpostID) AND state = 'active' ORDER BY created_at DESC LIMIT 1
                """).first?.decode([UInt8].self, at: 0)
            else { throw HTTPError(.notFound, code: "outpost-not-paired", detail: "this relay has no active pairing of this outpost") }
            guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key) else {
                throw HTTPError(.notFound, code: "outpost-not-paired", detail: "this relay has no pairing of this outpost")
            }
            try await gate.verify(request, key: publicKey)
            let body = try request.decodeJSON(HeartbeatBody.self, maxBytes: 1024)
            guard (0...Self.maxHeartbeatMailboxes).contains(body.mailboxes), (0...Self.maxHeartbeatMailboxes).contains(body.failing) else {
                throw HTTPError(.badRequest, code: "invalid-heartbeat", detail: "mailboxes and failing are counts from 0 to \(Self.maxHeartbeatMailboxes)")
            }
            let queued = try await recordHeartbeat(outpostID: outpostID, body: body)
            if !queued.isEmpty {
                context.logger.info("outpost alert queued", ["outpost_id": .string(outpostID), "type": .string(queued.map(\.rawValue).joined(separator: ","))])
            }
            return .empty(.noContent)
        }
    }

    /// Stores the heartbeat and, in the same transaction under the row lock,
    /// queues `outpost-back` (the outpost was silent) and `mailbox-failing`
    /// (the failing count rose from 0); returns the alerts queued.
    func recordHeartbeat(outpostID: String, body: HeartbeatBody) async throws -> [SystemAlert.Kind] {
        let nowMS = clockMS()
        let alerts = configuration.silenceAlerts
        let maxAge = configuration.maxEnvelopeAge
        return try await database.withTransaction { connection in
            var wasSilent = false
            var failingBefore = 0
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
                    wasSilent = state == "silent"
                    failingBefore = Int(failing)
                    break
                }
                // The outpost's first heartbeat; should another instance insert it first, update that row.
                let inserted = try await connection.execute("""
                    INSERT INTO outpost_heartbeats (outpost_id, last_seen_ms, mailboxes, failing, state)
                    VALUES (\(outpostID), \(nowMS), \(Int64(body.mailboxes)), \(Int64(body.failing)), 'alive')
                    ON CONFLICT (outpost_id) DO NOTHING
                    """)
                if inserted == 1 { break }
            }
            guard alerts else { return [] }
            var queued: [SystemAlert.Kind] = []
            if wasSilent {
                try await SystemAlertQueue.queue(SystemAlert(kind: .outpostBack, outpostID: outpostID, since: nowMS / 1000),
                                                 on: connection, nowMS: nowMS, maxAge: maxAge)
                queued.append(.outpostBack)
            }
            if failingBefore == 0, body.failing > 0 {
                try await SystemAlertQueue.queue(SystemAlert(kind: .mailboxFailing, outpostID: outpostID, since: nowMS / 1000, failing: body.failing),
                                                 on: connection, nowMS: nowMS, maxAge: maxAge)
                queued.append(.mailboxFailing)
            }
            return queued
        }
    }
}
