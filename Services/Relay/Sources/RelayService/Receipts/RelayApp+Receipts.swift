import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol

extension RelayApp {
    /// `POST /v1/devices/{device_id}/receipts` (PROTOCOL.md §13): a device says what it has shown.
    func addReceiptRoutes(to router: inout Router) {
        router.post("/v1/devices/{device_id}/receipts") { [self] request, context in
            let deviceID = try context.parameter("device_id")
            let header = try gate.header(of: request)
            guard header.keyID == deviceID else {
                throw HTTPError(.forbidden, code: "not-this-device", detail: "only the device itself may post its receipts")
            }
            guard let key = try await deviceSigningKey(deviceID) else {
                throw HTTPError(.forbidden, code: "device-not-paired", detail: "this device has no pairing at this relay")
            }
            try await gate.verify(request, key: key)
            let body = try ReceiptsBody.decode(request.body)
            let counts = try await recordReceipts(deviceID: deviceID, body.receipts)
            var w = JSONWriter()
            w.beginObject()
            w.int("displayed", Int64(counts.displayed))
            w.int("duplicate", Int64(counts.duplicate))
            w.int("ignored", Int64(counts.ignored))
            w.int("trimmed", Int64(counts.trimmed))
            w.endObject()
            return .json(bytes: w.bytes)
        }
    }

    /// What one receipts request did.
    struct ReceiptCounts: Sendable {
        var displayed = 0
        var duplicate = 0
        var ignored = 0
        var trimmed = 0
    }

    /// Checks every pairing is the device's (403 otherwise, nothing written),
    /// then in one statement marks the deliveries `displayed` (first receipt
    /// wins; `shown_at` clamped to [accepted, now]) and trims the catch-up log.
    func recordReceipts(deviceID: String, _ receipts: [ReceiptsBody.Receipt]) async throws -> ReceiptCounts {
        var seen = Set<String>()
        let unique = receipts.filter { seen.insert($0.pairingID + "/" + $0.eventID).inserted }
        let pairingIDs = Array(Set(unique.map(\.pairingID)))
        var pb = PostgresBindings()
        pb.append(PostgresArray(pairingIDs))
        pb.append(deviceID)
        let owned = try await database.query(PostgresQuery(unsafeSQL: """
            SELECT count(*) FROM pairings WHERE pairing_id = ANY($1::text[]) AND device_id = $2
            """, bindings: pb)).single().decode(Int64.self, at: 0)
        guard owned == pairingIDs.count else {
            throw HTTPError(.forbidden, code: "not-this-devices-pairing", detail: "a receipt names a pairing that is not this device's; nothing was recorded")
        }
        let nowMS = clockMS()
        var b = PostgresBindings()
        b.append(deviceID)
        b.append(PostgresArray(unique.map(\.pairingID)))
        b.append(PostgresArray(unique.map(\.eventID)))
        b.append(PostgresArray(unique.map(\.shownAt)))
        b.append(nowMS)
        // A receipt for a notification still queued or being sent ends it as
        // displayed too: the device has it (from its catch-up log), and a
        // worker's later completion leaves a finished row alone. A Live
        // Activity push not sent yet is never cut short (ActivityKit needs it):
        // its receipt is ignored.
        //
        // Committed without waiting for the WAL flush: receipts come one
        // small request per phone, and a flush each would compete with the
        // intake's group commits. A crash may forget the last few hundred ms
        // of receipts; those envelopes stay in the catch-up log, the App reads
        // them again, drops them as duplicates and receipts them again.
        let query = PostgresQuery(unsafeSQL: """
            WITH input AS (
                SELECT * FROM unnest($2::text[], $3::text[], $4::int8[]) AS t(pairing_id, event_id, shown_ms)
            ), marked AS (
                UPDATE deliveries d
                SET status = 'displayed', displayed_ms = LEAST(GREATEST(i.shown_ms, d.accepted_ms), $5::int8), updated_ms = $5::int8,
                    claimed_by = NULL, payload = ''::bytea
                FROM input i
                WHERE d.pairing_id = i.pairing_id AND d.event_id = i.event_id AND d.device_id = $1 AND d.status <> 'displayed'
                  AND (d.kind = 'notification' OR d.status IN ('sent', 'failed', 'expired'))
                RETURNING d.accepted_ms, d.sent_ms, d.displayed_ms
            ), trimmed AS (
                DELETE FROM catchup_envelopes c USING input i
                WHERE c.device_id = $1 AND c.pairing_id = i.pairing_id AND c.event_id = i.event_id
                RETURNING 1
            )
            SELECT 0, accepted_ms, sent_ms, displayed_ms FROM marked
            UNION ALL
            SELECT 1, count(*), NULL, NULL FROM deliveries d JOIN input i ON d.pairing_id = i.pairing_id AND d.event_id = i.event_id
            WHERE d.device_id = $1 AND d.status = 'displayed'
            UNION ALL
            SELECT 2, count(*), NULL, NULL FROM trimmed
            """, bindings: b)
        let rows = try await database.withTransaction { connection in
            try await connection.execute("SET LOCAL synchronous_commit TO off")
            return try await connection.query(query)
        }
        var counts = ReceiptCounts()
        for row in rows {
            let (kind, a, sent, displayed) = try row.decode((Int32, Int64, Int64?, Int64?).self)
            switch kind {
            case 0:
                counts.displayed += 1
                guard let displayed else { continue }
                relayMetrics.acceptToDisplayed.observe(Double(max(0, displayed - a)) / 1000)
                if let sent { relayMetrics.sentToDisplayed.observe(Double(max(0, displayed - sent)) / 1000) }
            case 1: counts.duplicate = Int(a)
            default: counts.trimmed = Int(a)
            }
        }
        counts.ignored = unique.count - counts.displayed - counts.duplicate
        counts.duplicate += receipts.count - unique.count
        relayMetrics.receipts["displayed"]?.increment(by: Int64(counts.displayed))
        relayMetrics.receipts["duplicate"]?.increment(by: Int64(counts.duplicate))
        relayMetrics.receipts["ignored"]?.increment(by: Int64(counts.ignored))
        return counts
    }
}
