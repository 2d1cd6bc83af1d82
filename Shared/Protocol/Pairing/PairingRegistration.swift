/// The body of `POST /v1/pairings` (PROTOCOL.md §9 step 1): an outpost
/// registers a pending pairing at the relay.
public struct PairingRegistration: Sendable, Hashable, Codable {
    public var pairingID: String
    /// X9.63 outpost identity key; the request's keyid must be its id.
    public var outpostKey: [UInt8]
    /// `SHA-256(relay_token)` (32 bytes, §9); the relay never learns the credential.
    public var relayTokenHash: [UInt8]
    /// Expiry, Unix seconds (at most 5 minutes ahead).
    public var expiresAt: Int64

    public init(pairingID: String, outpostKey: [UInt8], relayTokenHash: [UInt8], expiresAt: Int64) {
        self.pairingID = pairingID
        self.outpostKey = outpostKey
        self.relayTokenHash = relayTokenHash
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pairingID = "pairing_id"
        case outpostKey = "outpost_key"
        case relayTokenHash = "relay_token_hash"
        case expiresAt = "expires_at"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "pairing registration")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pairingID = try c.decodeString(.pairingID, maxBytes: 22)
        try PairingID.check(pairingID)
        outpostKey = try c.decodeBase64URL(.outpostKey, count: 65)
        relayTokenHash = try c.decodeBase64URL(.relayTokenHash, count: 32)
        expiresAt = Int64(try c.decodeUnsigned(.expiresAt))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pairingID, forKey: .pairingID)
        try c.encode(Base64URL.encode(outpostKey), forKey: .outpostKey)
        try c.encode(Base64URL.encode(relayTokenHash), forKey: .relayTokenHash)
        try c.encode(expiresAt, forKey: .expiresAt)
    }

    /// The body as JSON, keys in the order of §9.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.string("pairing_id", pairingID)
        w.base64URL("outpost_key", outpostKey)
        w.base64URL("relay_token_hash", relayTokenHash)
        w.int("expires_at", expiresAt)
        w.endObject()
        return w.bytes
    }
}
