import MailwakeProtocol

/// An accepted envelope, ready to be stored in the queue.
struct NewDelivery: Sendable {
    var pairingID: String
    var eventID: String
    var outpostID: String
    var deviceID: String
    var kind: DeliveryKind
    var activityID: String?
    var activityEvent: ActivityInfo.Event?
    /// The APNs payload built from the envelope (PROTOCOL.md §11).
    var payload: [UInt8]
    /// The envelope exactly as submitted, for the device's catch-up log (PROTOCOL.md §12).
    var envelope: [UInt8]
    /// SHA-256 of the submitted bytes: the same event again must be the same bytes.
    var envelopeHash: [UInt8]
    var iat: Int64
    /// No delivery attempt after this (Unix seconds).
    var deadline: Int64
    var acceptedMS: Int64
    /// Stored already claimed by this instance (its worker sends it at once,
    /// without a claim query); false stores it queued for any instance.
    var claimedHere: Bool
}

/// What storing a `NewDelivery` came to.
enum EnqueueOutcome: Sendable, Hashable {
    /// Stored now.
    case queued
    /// Stored before with the same bytes.
    case duplicate
    /// Stored before with different bytes under the same event id.
    case conflict
    /// Not stored: the pairing is no longer active (ended meanwhile).
    case pairingInactive
    /// Not stored: the outpost's rate budget is spent; seconds until a token is free.
    case rateLimited(retryAfter: Int)
}
