/// One submission of `EnvelopeLoad`: when it was sent, when it was answered, and how.
public struct EnvelopeLoadAnswer: Sendable {
    public let eventID: String
    public let sentAt: ContinuousClock.Instant
    public let answeredAt: ContinuousClock.Instant
    /// The HTTP status, or nil when the request failed without an answer (refused, reset, timed out).
    public let status: Int?

    public var isAcknowledged: Bool { status == 202 }
}
