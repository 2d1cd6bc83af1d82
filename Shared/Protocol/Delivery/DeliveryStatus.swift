/// A delivery's state in the relay's queue, as outposts and operators see it
/// (`GET /v1/envelopes/{pairing_id}/{event_id}`, PROTOCOL.md §13).
public enum DeliveryStatus: String, Sendable, Hashable, CaseIterable {
    case queued, sending, sent, displayed, failed, expired

    /// Sent, displayed, failed or expired: the relay will not send it (again).
    public var isFinal: Bool { self == .sent || self == .displayed || self == .failed || self == .expired }

    /// Sent or displayed: APNs accepted it.
    public var reachedAPNs: Bool { self == .sent || self == .displayed }
}
