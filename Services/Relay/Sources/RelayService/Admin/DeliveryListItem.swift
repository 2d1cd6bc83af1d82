import MailwakePostgres
import MailwakeProtocol

/// One delivery as operators see it: ids, status and APNs' answer; never the payload.
struct DeliveryListItem: Sendable {
    var pairingID: String
    var eventID: String
    var deviceID: String
    var kind: String
    var status: String
    var attempts: Int
    var apnsStatus: Int?
    var apnsReason: String?
    var acceptedMS: Int64
    var updatedMS: Int64

    static let columns = "pairing_id, event_id, device_id, kind, status, attempts, apns_status, apns_reason, accepted_ms, updated_ms"

    init(row: PostgresRow) throws {
        let (p, e, d, k, s, a, st, r, acc,
             upd) = try row.decode((String, String, String, String, String, Int32, Int32?, String?, Int64, Int64).self)
        (pairingID, eventID, deviceID, kind, status, attempts, apnsStatus, apnsReason, acceptedMS, updatedMS) =
            (p, e, d, k, s, Int(a), st.map(Int.init), r, acc, upd)
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.string("pairing_id", pairingID)
        w.string("event_id", eventID)
        w.string("device_id", deviceID)
        w.string("kind", kind)
        w.string("status", status)
        w.int("attempts", Int64(attempts))
        if let apnsStatus { w.int("apns_status", Int64(apnsStatus)) } else { w.raw("apns_status", Array("null".utf8)) }
        if let apnsReason { w.string("apns_reason", apnsReason) } else { w.raw("apns_reason", Array("null".utf8)) }
        w.int("accepted_at_ms", acceptedMS)
        w.int("updated_at_ms", updatedMS)
        w.endObject()
    }
}
