import MailwakeProtocol

/// The body of `POST /v1/devices/{device_id}/receipts` (PROTOCOL.md §13): 1 to 100 receipts, nothing else.
struct ReceiptsBody: Decodable, Sendable {
    static let maxReceipts = 100
    /// Room for 100 receipts with long ids and some whitespace.
    static let maxBytes = 24 * 1024

    var receipts: [Receipt]

    /// One shown (or dropped as a duplicate) notification: identifiers and the device's clock.
    struct Receipt: Decodable, Sendable {
        var pairingID: String
        var eventID: String
        /// Unix milliseconds on the device's clock.
        var shownAt: Int64

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: ReceiptsBodyKey.self)
            try ReceiptsBodyKey.refuseUnknown(in: c, allowed: ["pairing_id", "event_id", "shown_at"])
            pairingID = try c.decode(String.self, forKey: ReceiptsBodyKey(stringValue: "pairing_id"))
            eventID = try c.decode(String.self, forKey: ReceiptsBodyKey(stringValue: "event_id"))
            shownAt = try c.decode(Int64.self, forKey: ReceiptsBodyKey(stringValue: "shown_at"))
        }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ReceiptsBodyKey.self)
        try ReceiptsBodyKey.refuseUnknown(in: c, allowed: ["receipts"])
        receipts = try c.decode([Receipt].self, forKey: ReceiptsBodyKey(stringValue: "receipts"))
    }

    /// Decodes strictly and checks every entry's shape; throws a `ProtocolError` (400 `malformed`, 413 `too_large`).
    static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> ReceiptsBody {
        let body = try StrictJSON.decode(ReceiptsBody.self, from: bytes, limits: .init(maxBytes: maxBytes, maxDepth: 4))
        guard (1...maxReceipts).contains(body.receipts.count) else {
            throw ProtocolError(.malformed, "receipts must hold 1 to \(maxReceipts) entries, not \(body.receipts.count)")
        }
        for (i, r) in body.receipts.enumerated() {
            guard PairingID.isValid(r.pairingID) else { throw ProtocolError(.malformed, "receipts[\(i)].pairing_id is not a pairing id") }
            guard EventID.isValid(r.eventID) else { throw ProtocolError(.malformed,
                                                                        "receipts[\(i)].event_id is not an event id (a UUID)") }
            guard r.shownAt >= 0 else { throw ProtocolError(.malformed,
                                                            "receipts[\(i)].shown_at must be Unix milliseconds, not negative") }
        }
        return body
    }
}
