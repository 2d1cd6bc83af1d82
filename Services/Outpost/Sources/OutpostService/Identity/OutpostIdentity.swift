public import MailwakeCrypto
import MailwakeProtocol

/// The outpost's identity: a P-256 signing key whose public half pairs it with
/// devices and whose id (`KeyIdentity`) names it to relay and accounts.
public struct OutpostIdentity: Sendable {
    public let signingKey: P256.Signing.PrivateKey

    public init(signingKey: P256.Signing.PrivateKey) { self.signingKey = signingKey }

    /// X9.63 public key.
    public var publicKey: [UInt8] { signingKey.publicKey.x963Representation }
    /// The outpost id (PROTOCOL.md §2).
    public var id: String { KeyIdentity.id(of: signingKey.publicKey) }
    /// The fingerprint people compare on the iPhone.
    public var fingerprint: String { KeyIdentity.fingerprint(of: publicKey) }
}
