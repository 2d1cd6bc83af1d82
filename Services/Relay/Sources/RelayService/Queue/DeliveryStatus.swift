/// A delivery's state in the queue, as outposts and operators see it.
enum DeliveryStatus: String, Sendable, Hashable, CaseIterable {
    case queued, sending, sent, displayed, failed, expired

    /// Sent, displayed, failed or expired: the relay will not send it (again).
    var isFinal: Bool { self == .sent || self == .displayed || self == .failed || self == .expired }
}
