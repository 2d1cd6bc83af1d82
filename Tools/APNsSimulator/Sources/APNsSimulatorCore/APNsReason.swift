/// The `reason` values APNs puts in an error body, with the status each
/// comes with (Apple, "Handling notification responses from APNs").
///
/// `badPayload` is the simulator's own: Apple does not check that the
/// payload is a JSON object, the simulator does so that a malformed
/// payload is caught in tests rather than on a phone.
public enum APNsReason: String, Error, Sendable, CaseIterable {
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case idleTimeout = "IdleTimeout"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"
    case badPayload = "BadPayload"
    case expiredProviderToken = "ExpiredProviderToken"
    case forbidden = "Forbidden"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case expiredToken = "ExpiredToken"
    case unregistered = "Unregistered"
    case payloadTooLarge = "PayloadTooLarge"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case tooManyRequests = "TooManyRequests"
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"

    /// The HTTP status APNs answers with this reason.
    public var status: Int {
        switch self {
        case .expiredProviderToken, .invalidProviderToken, .missingProviderToken, .forbidden: 403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        default: 400
        }
    }

    /// The reason the simulator gives for an injected `status` when none is named.
    public static func defaultReason(for status: Int) -> String? {
        switch status {
        case 200: nil
        case 400: APNsReason.badDeviceToken.rawValue
        case 403: APNsReason.forbidden.rawValue
        case 404: APNsReason.badPath.rawValue
        case 405: APNsReason.methodNotAllowed.rawValue
        case 410: APNsReason.unregistered.rawValue
        case 413: APNsReason.payloadTooLarge.rawValue
        case 429: APNsReason.tooManyRequests.rawValue
        case 500: APNsReason.internalServerError.rawValue
        case 503: APNsReason.serviceUnavailable.rawValue
        default: status >= 500 ? APNsReason.internalServerError.rawValue : APNsReason.forbidden.rawValue
        }
    }
}
