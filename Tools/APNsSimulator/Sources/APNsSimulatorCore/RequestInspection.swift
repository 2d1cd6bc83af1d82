/// What the validator learnt about a request to `/3/device/…`: the parts it
/// could read, and the first check that failed (nil when all passed).
public struct RequestInspection: Sendable, Equatable {
    /// The device token from the path, when the path had the right shape.
    public var deviceToken: String?
    /// The verified provider token, when the JWT was accepted.
    public var providerToken: ProviderToken?
    /// The first failed check, in APNs order.
    public var refusal: APNsReason?

    public init(deviceToken: String? = nil, providerToken: ProviderToken? = nil, refusal: APNsReason? = nil) {
        self.deviceToken = deviceToken
        self.providerToken = providerToken
        self.refusal = refusal
    }
}
