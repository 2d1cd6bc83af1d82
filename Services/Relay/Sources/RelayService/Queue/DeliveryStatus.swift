/// A delivery's state in the queue, as outposts and operators see it.
enum DeliveryStatus: String, Sendable, Hashable, CaseIterable {
    case queued, sending, sent, failed, expired

    /// Sent, failed or expired: nothing more will happen.
    var isFinal: Bool { self == .sent || self == .failed || self == .expired }
}
