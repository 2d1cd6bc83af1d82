import MailwakeHTTPServer
import MailwakePostgres
import MailwakeProtocol

/// Reads one envelope's delivery state from `deliveries` for its outpost (PROTOCOL.md §13).
struct DeliveryStatusStore: Sendable {
    let database: PostgresClient

    /// The delivery of `eventID` in the pairing, with the relay's per-hop times in Unix seconds; nil when there is none.
    func report(pairingID: String, eventID: String) async throws -> DeliveryStatusReport? {
        guard let row = try await database.query("""
            SELECT status, attempts, apns_status, apns_reason, updated_ms, accepted_ms, sent_ms, displayed_ms
            FROM deliveries WHERE pairing_id = \(pairingID) AND event_id = \(eventID)
            """).first
        else { return nil }
        let (status, attempts, apnsStatus, reason, updated, accepted, sent, displayed) =
            try row.decode((String, Int32, Int32?, String?, Int64, Int64, Int64?, Int64?).self)
        guard let status = DeliveryStatus(rawValue: status) else {
            throw HTTPError(.internalServerError, code: .internalError, detail: "a delivery has a status this relay does not know")
        }
        return DeliveryStatusReport(status: status, attempts: Int(attempts), apnsStatus: apnsStatus.map(Int.init),
                                    apnsReason: reason.map(DeliveryReason.init(rawValue:)), updatedAt: updated / 1000,
                                    acceptedAt: accepted / 1000, sentAt: sent.map { $0 / 1000 }, displayedAt: displayed.map { $0 / 1000 })
    }
}
