public import MailwakeCrypto

/// The body of `POST /v1/pairings/{id}/consent` (PROTOCOL.md §9 step 3):
/// the relay token derived from the link's credential, and the consent.
public struct ConsentSubmission: Sendable, Hashable, Codable {
    /// `relay_token` (32 bytes), derived from the credential; the credential itself never reaches the relay.
    public var relayToken: [UInt8]
    public var consent: PairingConsent

    public init(relayToken: [UInt8], consent: PairingConsent) {
        self.relayToken = relayToken
        self.consent = consent
    }

    /// The App's submission for `link`: its relay token and a fresh consent.
    public static func create(for link: PairingLink, signingKey: P256.Signing.PrivateKey,
                              agreementKey: P256.KeyAgreement.PublicKey) throws(ProtocolError) -> ConsentSubmission {
        ConsentSubmission(relayToken: try PairingSecrets(credential: link.credential).relayToken,
                          consent: try PairingConsent.create(for: link, signingKey: signingKey, agreementKey: agreementKey))
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case relayToken = "relay_token"
        case consent
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "consent submission")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        relayToken = try c.decodeBase64URL(.relayToken, count: 32)
        consent = try c.decode(PairingConsent.self, forKey: .consent)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Base64URL.encode(relayToken), forKey: .relayToken)
        try c.encode(consent, forKey: .consent)
    }

    /// The body as JSON.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.base64URL("relay_token", relayToken)
        consent.write(to: &w, key: "consent")
        w.endObject()
        return w.bytes
    }
}
