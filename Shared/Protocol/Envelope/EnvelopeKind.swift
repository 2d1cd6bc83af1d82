/// What an envelope carries (PROTOCOL.md §3).
public enum EnvelopeKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// An ordinary alert notification.
    case notification
    /// A Live Activity start, update or end.
    case liveActivity = "live-activity"
}
