public import MailwakeProtocol

/// A device this outpost delivers to, with the keys locked at pairing.
public struct PairedDevice: Sendable, Hashable {
    public var pairingID: String
    public var deviceID: String
    public var signingKey: [UInt8]
    public var agreementKey: [UInt8]
    public var relayURL: String
    public var environment: PushEnvironment
    public var active: Bool
    public var pairedAt: Int64
    public var unpairedAt: Int64?
    /// Whether codes are also shown as a Live Activity on this device.
    public var liveActivities: LiveActivities = .on

    /// Live Activities for a pairing: `on` (the default), `off` (the owner
    /// turned them off), `unavailable` (the relay reported that the device
    /// has no push-to-start token: the App has not allowed them).
    public enum LiveActivities: String, Sendable, Hashable {
        case on, off, unavailable
    }

    /// The fingerprint people compare on the iPhone.
    public var fingerprint: String { KeyIdentity.fingerprint(of: signingKey) }
}
