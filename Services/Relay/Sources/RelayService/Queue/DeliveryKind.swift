import MailwakeProtocol

/// What a queued delivery carries (`deliveries.kind`): an outpost's envelope of one kind, or a relay-authored alert.
enum DeliveryKind: Sendable, Hashable {
    case envelope(EnvelopeKind)
    /// A relay-authored alert (PROTOCOL.md §14): travels like a notification.
    case systemAlert

    /// The column's value.
    var rawValue: String {
        switch self {
        case .envelope(let kind): kind.rawValue
        case .systemAlert: "system"
        }
    }

    /// Reads the column; a value this version does not know is sent like a notification.
    init(rawValue: String) {
        if rawValue == "system" { self = .systemAlert } else { self = .envelope(EnvelopeKind(rawValue: rawValue) ?? .notification) }
    }

    /// The kind APNs sees (push type, topic, priority).
    var apnsKind: EnvelopeKind {
        switch self {
        case .envelope(let kind): kind
        case .systemAlert: .notification
        }
    }
}
