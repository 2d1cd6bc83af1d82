import MailwakeProtocol

/// A delivery this instance claimed and now sends.
struct ClaimedDelivery: Sendable {
    var pairingID: String
    var eventID: String
    var deviceID: String
    /// The outpost that submitted it: a blocked outpost's deliveries stop.
    var outpostID: String
    /// The outpost's identity key (SEC1), for accounts when it forgot the outpost.
    var outpostKey: [UInt8]
    var kind: DeliveryKind
    var activityID: String?
    var activityEvent: ActivityInfo.Event?
    var payload: [UInt8]
    var iat: Int64
    var deadline: Int64
    /// Including this one.
    var attempts: Int
    var acceptedMS: Int64
    /// The pairing's state now: a pairing ended since acceptance stops delivery.
    var pairingActive: Bool
    /// What intake found at accounts for the device a moment ago, when intake
    /// handed the delivery over itself (nil for deliveries claimed from the
    /// queue): the worker sends with it instead of asking the cache again.
    var checkedAtIntake: DeviceAuthorization? = nil
}

/// How one claimed delivery ends this attempt.
struct DeliveryCompletion: Sendable {
    var pairingID: String
    var eventID: String
    var status: DeliveryStatus
    /// For `queued` (a retry): when to try again, Unix milliseconds.
    var nextAttemptMS: Int64
    var apnsStatus: Int?
    var reason: DeliveryReason?
    /// When the attempt ended, Unix milliseconds.
    var atMS: Int64
    /// APNs said the token is no longer valid: accounts is told once the outcome is stored (never written to the queue).
    var invalidToken: InvalidToken? = nil

    /// A token APNs refused as unregistered or bad, and APNs' time for it.
    struct InvalidToken: Sendable {
        var token: String
        var timestampMS: Int64
    }
}
