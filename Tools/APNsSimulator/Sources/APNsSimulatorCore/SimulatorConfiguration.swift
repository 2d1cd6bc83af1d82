public import MailwakeCrypto

/// How one simulator is set up at start (the options of
/// `mailwake-apns-simulator serve`).
public struct SimulatorConfiguration: Sendable {
    /// The address to listen on (an IPv4 or IPv6 literal).
    public var host: String = "127.0.0.1"
    /// The port; 0 picks a free one.
    public var port: UInt16 = 0
    /// TLS certificate chain and key (PEM files).
    public var certificateFile: String
    public var privateKeyFile: String
    /// The App's bundle id (`apns-topic` of alert pushes).
    public var topic: String
    /// The `kid` and `iss` provider tokens must carry, and the key that signs them.
    public var keyID: String
    public var teamID: String
    public var publicKey: P256.Signing.PublicKey
    /// Seconds after `iat` a provider token expires. Apple: one hour.
    public var tokenMaxAge: Int64 = 3600
    /// Seconds a team's provider token must have been in use before a new one is accepted; sooner is
    /// `TooManyProviderTokenUpdates` (429). Apple: 20 minutes. 0 turns the rule off.
    public var minimumTokenUpdateInterval: Int64 = 1200
    /// Append every delivery to this file as a JSON line.
    public var recordPath: String?
    /// Deliveries kept in memory for `GET /_sim/deliveries`.
    public var keepDeliveries: Int = 100_000
    /// Largest request body read; longer ones are answered PayloadTooLarge.
    public var maxBodyBytes: Int = 65_536
    /// Refuse what Apple's servers tolerate: a TLS client that does not negotiate `h2` through ALPN, and a push
    /// without `apns-push-type` (InvalidPushType). Off by default, so that other gateways' clients work unchanged;
    /// Mailwake's own tests turn it on to hold the relay to the stricter standard.
    public var strict = false
    /// Latency, failure rates, GOAWAY and stream limit at start.
    public var settings = SimulatorSettings()

    public init(certificateFile: String, privateKeyFile: String, topic: String, keyID: String, teamID: String,
                publicKey: P256.Signing.PublicKey) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.topic = topic
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
    }
}
