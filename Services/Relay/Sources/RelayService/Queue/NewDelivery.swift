import MailwakeProtocol

/// An accepted envelope, ready to be stored in the queue.
///
/// A class of constants: a delivery goes from the listener's thread into a batch, a closure and the hand-off to the
/// worker, and copying a struct of eight counted fields retained and released each of them at every step.
final class NewDelivery: Sendable {
    let pairingID: String
    let eventID: String
    let outpostID: String
    let deviceID: String
    let kind: DeliveryKind
    let activityID: String?
    let activityEvent: ActivityInfo.Event?
    /// The APNs payload built from the envelope (PROTOCOL.md §11).
    let payload: [UInt8]
    /// The envelope exactly as submitted, for the device's catch-up log (PROTOCOL.md §12).
    let envelope: [UInt8]
    /// SHA-256 of the submitted bytes: the same event again must be the same bytes.
    let envelopeHash: [UInt8]
    let iat: Int64
    /// No delivery attempt after this (Unix seconds).
    let deadline: Int64
    let acceptedMS: Int64
    /// Stored already claimed by this instance (its worker sends it at once,
    /// without a claim query); false stores it queued for any instance.
    let claimedHere: Bool

    init(pairingID: String, eventID: String, outpostID: String, deviceID: String, kind: DeliveryKind, activityID: String?,
         activityEvent: ActivityInfo.Event?, payload: [UInt8], envelope: [UInt8], envelopeHash: [UInt8], iat: Int64,
         deadline: Int64, acceptedMS: Int64, claimedHere: Bool) {
        self.pairingID = pairingID
        self.eventID = eventID
        self.outpostID = outpostID
        self.deviceID = deviceID
        self.kind = kind
        self.activityID = activityID
        self.activityEvent = activityEvent
        self.payload = payload
        self.envelope = envelope
        self.envelopeHash = envelopeHash
        self.iat = iat
        self.deadline = deadline
        self.acceptedMS = acceptedMS
        self.claimedHere = claimedHere
    }
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
