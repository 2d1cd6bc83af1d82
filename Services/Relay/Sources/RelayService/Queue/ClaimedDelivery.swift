/// A delivery this instance claimed and now sends.
struct ClaimedDelivery: Sendable {
    var pairingID: String
    var eventID: String
    var deviceID: String
    /// The outpost that submitted it: a blocked outpost's deliveries stop.
    var outpostID: String
    /// The outpost's identity key (SEC1), for accounts when it forgot the outpost.
    var outpostKey: [UInt8]
    var kind: String
    var activityID: String?
    var activityEvent: String?
    var payload: [UInt8]
    var iat: Int64
    var deadline: Int64
    /// Including this one.
    var attempts: Int
    var acceptedMS: Int64
    /// The pairing's state now: a pairing ended since acceptance stops delivery.
    var pairingActive: Bool
}

/// How one claimed delivery ends this attempt.
struct DeliveryCompletion: Sendable {
    var pairingID: String
    var eventID: String
    var status: DeliveryStatus
    /// For `queued` (a retry): when to try again, Unix milliseconds.
    var nextAttemptMS: Int64
    var apnsStatus: Int?
    var reason: String?
    /// When the attempt ended, Unix milliseconds.
    var atMS: Int64
}
