/// The body of `POST /v1/pairings/{id}/consent` (PROTOCOL.md §9 step 3).
public struct ConsentSubmission: Sendable, Hashable, Codable {
    /// The one-time credential from the link (32 bytes).
    public var credential: [UInt8]
    public var consent: PairingConsent

    public init(credential: [UInt8], consent: PairingConsent) {
        self.credential = credential
        self.consent = consent
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case credential, consent
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "consent submission")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        credential = try c.decodeBase64URL(.credential, count: 32)
        consent = try c.decode(PairingConsent.self, forKey: .consent)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Base64URL.encode(credential), forKey: .credential)
        try c.encode(consent, forKey: .consent)
    }

    /// The body as JSON.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.base64URL("credential", credential)
        consent.write(to: &w, key: "consent")
        w.endObject()
        return w.bytes
    }
}
