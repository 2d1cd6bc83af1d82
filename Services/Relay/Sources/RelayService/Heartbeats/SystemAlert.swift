import Foundation
import MailwakeProtocol

/// A relay-authored APNs alert about an outpost (PROTOCOL.md §14): push type
/// `alert`, an `mw_sys` object, no envelope and no mail data.
struct SystemAlert: Sendable, Hashable {
    /// What happened to the outpost.
    enum Kind: String, Sendable, Hashable {
        case outpostSilent = "outpost-silent"
        case outpostBack = "outpost-back"
        case mailboxFailing = "mailbox-failing"
    }

    var kind: Kind
    var outpostID: String
    /// Unix seconds: the last heartbeat (silent), or when the alert was raised (back, failing).
    var since: Int64
    /// Mailboxes failing to connect or log in (mailbox-failing only).
    var failing: Int = 0

    /// The APNs payload bytes.
    var payload: [UInt8] {
        var w = JSONWriter(capacity: 320)
        w.beginObject()
        w.beginObject("aps")
        w.beginObject("alert")
        w.string("title", "Mailwake")
        w.string("body", body)
        w.endObject()
        w.int("mutable-content", 1)
        w.endObject()
        w.beginObject("mw_sys")
        w.int("v", 1)
        w.string("type", kind.rawValue)
        w.string("outpost_id", outpostID)
        w.int("since", since)
        if kind == .mailboxFailing { w.int("failing", Int64(failing)) }
        w.endObject()
        w.endObject()
        return w.bytes
    }

    /// The generic text shown when the App does not rewrite the notification.
    var body: String {
        switch kind {
        case .outpostSilent: "Your outpost has not checked in since \(Self.clockTime(since)) UTC"
        case .outpostBack: "Your outpost is checking in again"
        case .mailboxFailing:
            failing == 1 ? "1 mailbox on your outpost cannot be checked" : "\(failing) mailboxes on your outpost cannot be checked"
        }
    }

    /// `HH:MM` in UTC (the relay does not know the device's time zone; `since` carries the instant).
    static func clockTime(_ unix: Int64) -> String {
        let seconds = ((unix % 86400) + 86400) % 86400
        let h = seconds / 3600, m = seconds % 3600 / 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }
}
