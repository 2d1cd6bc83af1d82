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

    /// The fingerprint people compare on the iPhone.
    public var fingerprint: String { KeyIdentity.fingerprint(of: signingKey) }
}
