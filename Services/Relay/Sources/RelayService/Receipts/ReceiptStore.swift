import MailwakePostgres

/// Marks deliveries `displayed` from a device's receipts and trims its catch-up log (PROTOCOL.md §13).
struct ReceiptStore: Sendable {
    let database: PostgresClient

    /// What one batch of receipts changed.
    struct Marked: Sendable {
        /// One delivery this batch marked displayed.
        struct Delivery: Sendable {
            var acceptedMS: Int64
            var sentMS: Int64?
            var displayedMS: Int64?
        }

        var displayed: [Delivery] = []
        /// Receipts whose delivery was displayed already (by this batch or an earlier one).
        var alreadyDisplayed = 0
        /// Catch-up envelopes removed.
        var trimmed = 0
        /// A receipt named a pairing that is not the device's: nothing was written.
        var namesOthersPairing = false
    }

    /// In one statement checks that every pairing named is the device's
    /// (writing nothing otherwise), marks the deliveries `displayed` (first
    /// receipt wins; `shown_at` clamped to [accepted, now]) and trims the
    /// catch-up log. `receipts` holds each pairing/event once.
    func markDisplayed(deviceID: String, _ receipts: [ReceiptsBody.Receipt], nowMS: Int64) async throws -> Marked {
        let rows = try await database.query(Self.markQuery(deviceID: deviceID, pairingIDs: receipts.map(\.pairingID),
                                                           eventIDs: receipts.map(\.eventID), shownAt: receipts.map(\.shownAt),
                                                           nowMS: nowMS))
        var marked = Marked()
        for row in rows {
            let (kind, a, sent, displayed) = try row.decode((Int32, Int64, Int64?, Int64?).self)
            switch kind {
            case 0: marked.displayed.append(Marked.Delivery(acceptedMS: a, sentMS: sent, displayedMS: displayed))
            case 1: marked.alreadyDisplayed = Int(a)
            case 2: marked.trimmed = Int(a)
            case 4: marked.namesOthersPairing = true
            default: break
            }
        }
        return marked
    }

    /// `markSQL` with its parameters: the device, each receipt's pairing, event and `shown_at` (ms), and now (ms).
    static func markQuery(deviceID: String, pairingIDs: [String], eventIDs: [String], shownAt: [Int64], nowMS: Int64) -> PostgresQuery {
        var b = PostgresBindings()
        b.append(deviceID)
        b.append(PostgresArray(pairingIDs))
        b.append(PostgresArray(eventIDs))
        b.append(PostgresArray(shownAt))
        b.append(nowMS)
        return PostgresQuery(unsafeSQL: markSQL, bindings: b)
    }

    // A receipt for a notification still queued or being sent ends it as
    // displayed too: the device has it (from its catch-up log), and a
    // worker's later completion leaves a finished row alone. A Live
    // Activity push not sent yet is never cut short (ActivityKit needs it):
    // its receipt is ignored.
    //
    // One statement, in the implicit transaction of its own, committed
    // without waiting for the WAL flush (`settings`, a setting local to that
    // transaction): receipts come one small request per phone, and a flush
    // each would compete with the intake's group commits. A crash may forget
    // the last few hundred ms of receipts; those envelopes stay in the
    // catch-up log, the App reads them again, drops them as duplicates and
    // receipts them again. The last branch never yields a row; it is what
    // runs `settings`.
    //
    // Each receipt looks up its own rows, by key (the `OFFSET 0` lateral
    // subqueries are planned per receipt): joined as sets, a generic plan
    // made while the tables were small read the device's whole catch-up log,
    // or every displayed delivery, for each batch of receipts. The receipts
    // go in key order, so the update locks deliveries in the order a
    // pairing's end and the completion batch do. The catch-up envelope is
    // deleted by `ctid`: its rows are inserted and deleted, never updated,
    // so the version the statement found is the row (keep it so, and keep
    // the table unpartitioned, or delete by key instead).
    static let markSQL = """
        WITH settings AS MATERIALIZED (
            SELECT set_config('synchronous_commit', 'off', true) AS value
        ), input AS (
            SELECT * FROM unnest($2::text[], $3::text[], $4::int8[]) AS t(pairing_id, event_id, shown_ms)
            ORDER BY pairing_id, event_id
        ), owned AS MATERIALIZED (
            SELECT count(*) = (SELECT count(DISTINCT pairing_id) FROM input) AS all_owned
            FROM pairings WHERE pairing_id = ANY($2::text[]) AND device_id = $1
        ), marked AS (
            UPDATE deliveries d
            SET status = 'displayed', displayed_ms = LEAST(GREATEST(i.shown_ms, d.accepted_ms), $5::int8), updated_ms = $5::int8,
                claimed_by = NULL, payload = ''::bytea
            FROM input i
            WHERE d.pairing_id = i.pairing_id AND d.event_id = i.event_id AND d.device_id = $1 AND d.status <> 'displayed'
              AND (d.kind = 'notification' OR d.status IN ('sent', 'failed', 'expired')) AND (SELECT all_owned FROM owned)
            RETURNING d.accepted_ms, d.sent_ms, d.displayed_ms
        ), trimmed AS (
            DELETE FROM catchup_envelopes WHERE (SELECT all_owned FROM owned) AND ctid = ANY (ARRAY(
                SELECT e.ctid FROM input i, LATERAL (
                    SELECT c.ctid FROM catchup_envelopes c
                    WHERE c.pairing_id = i.pairing_id AND c.event_id = i.event_id AND c.device_id = $1 OFFSET 0) e))
            RETURNING 1
        )
        SELECT 0, accepted_ms, sent_ms, displayed_ms FROM marked
        UNION ALL
        SELECT 1, count(*), NULL, NULL FROM input i, LATERAL (
            SELECT 1 FROM deliveries d
            WHERE d.pairing_id = i.pairing_id AND d.event_id = i.event_id AND d.device_id = $1 AND d.status = 'displayed' OFFSET 0) d
        UNION ALL
        SELECT 2, count(*), NULL, NULL FROM trimmed
        UNION ALL
        SELECT 3, 0, NULL, NULL FROM settings WHERE value <> 'off'
        UNION ALL
        SELECT 4, 0, NULL, NULL FROM owned WHERE NOT all_owned
        """
}
