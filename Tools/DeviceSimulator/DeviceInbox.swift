import Foundation
import MailwakeCrypto
import MailwakeProtocol

/// Opens an APNs payload the way the App's notification service extension does.
enum DeviceInbox {
    /// The envelope an APNs payload carries (`mw`, or `aps.content-state.mw` for a Live Activity).
    static func envelope(inPayload payload: String) throws -> Envelope {
        guard let object =
            try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] else { throw DeviceError("a payload is " +
                "not JSON") }
        let aps = object["aps"] as? [String: Any]
        guard let mw = object["mw"]
            ?? (aps?["content-state"] as? [String: Any])?["mw"] else { throw DeviceError("a payload carries no envelope") }
        return try Envelope.decode(Array(try JSONSerialization.data(withJSONObject: mw)))
    }

    /// What the App dedupes shown notifications by: the pairing and the event (PROTOCOL.md §12).
    static func key(of envelope: Envelope) -> String { envelope.context.pairingID + "/" + envelope.context.eventID }

    /// The notification as one JSON line, with the pairing it came through, how it came (`apns` or `catch-up`) and,
    /// for a code from a sender that failed authentication, `"suspicious_code": true`.
    static func open(_ envelope: Envelope, state: DeviceState, receivedAtMS: Int64, source: String) throws -> String {
        guard let pairing = state.pairings.first(where: { $0.pairingID == envelope.context.pairingID }),
              let outpostKey = Base64URL.decode(pairing.outpostKey)
        else { throw DeviceError("an envelope for pairing \(envelope.context.pairingID), which this device does not have") }
        let opener = EnvelopeOpener(agreementKey: try state.agreement,
                                    outpostKey: try P256.Signing.PublicKey(x963Representation: outpostKey),
                                    audience: pairing.relay, pairingID: pairing.pairingID)
        let content = try NotificationContent.decode(try opener.open(envelope))
        var w = JSONWriter()
        w.beginObject()
        w.string("pairing_id", pairing.pairingID)
        w.string("event_id", envelope.context.eventID)
        w.int("received_at_ms", receivedAtMS)
        w.string("source", source)
        w.raw("notification", content.jsonBytes)
        // PROTOCOL.md §6: the App marks a code from a sender whose domain failed authentication as suspicious.
        if content.code != nil, content.senderAuth == .fail { w.bool("suspicious_code", true) }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
