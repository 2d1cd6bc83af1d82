/// Why a delivery ended or waits, as the relay records it (`apns_reason`):
/// the reason APNs gave (`BadDeviceToken`, `TooManyRequests`, …), or one the
/// relay sets itself (the constants below).
public struct DeliveryReason: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }

    /// The device has no APNs token for this kind of push (a Live Activity start without a push-to-start token).
    public static let noDeviceToken: DeliveryReason = "no_device_token"
    /// Apple refused a Live Activity start (its push-to-start budget): the relay sent the code as a time-sensitive alert.
    public static let pushToStartRefusedAlerted: DeliveryReason = "push_to_start_refused_alerted"
    /// The relay could not make an APNs provider token (its key): retried.
    public static let providerTokenUnavailable: DeliveryReason = "ProviderTokenUnavailable"
    /// APNs' own reason for a 429.
    public static let tooManyRequests: DeliveryReason = "TooManyRequests"
    /// APNs' reason when provider tokens are renewed too often.
    public static let tooManyProviderTokenUpdates: DeliveryReason = "TooManyProviderTokenUpdates"

    /// The pairing ended after the envelope was accepted.
    public static let pairingEnded: DeliveryReason = "pairing_ended"
    /// Not sent before the envelope's deadline (`iat` + the relay's maximum age).
    public static let deadlinePassed: DeliveryReason = "deadline_passed"
    /// The operator blocked the outpost at accounts.
    public static let outpostBlocked: DeliveryReason = "outpost_blocked"
    /// Accounts could not be asked about the device or outpost: retried.
    public static let accountsUnavailable: DeliveryReason = "accounts_unavailable"
    /// The device has no push entitlement (purchase or trial).
    public static let deviceNotEntitled: DeliveryReason = "device_not_entitled"
    /// The device is unknown to accounts or no longer active.
    public static let deviceNotAuthorized: DeliveryReason = "device_not_authorized"

    /// The request did not complete at the transport level (`transport_<code>`, the HTTP client's error code).
    public static func transport(_ code: String) -> DeliveryReason { DeliveryReason(rawValue: "transport_" + code) }

    /// A transport failure that shows the request never reached APNs (a stream refused by GOAWAY, a closed
    /// connection): safe to retry at once on another connection.
    public var neverReachedAPNs: Bool {
        self == .transport("stream_refused") || self == .transport("connection_closed")
    }
}
