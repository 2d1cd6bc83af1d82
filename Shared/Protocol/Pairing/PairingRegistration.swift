/// The body of `POST /v1/pairings` (PROTOCOL.md §9 step 1): an outpost
/// registers a pending pairing at the relay.
public struct PairingRegistration: Sendable, Hashable, Codable {
    public var pairingID: String
    /// X9.63 outpost identity key; the request's keyid must be its id.
    public var outpostKey: [UInt8]
    /// SHA-256 of the one-time credential (32 bytes).
    public var credentialHash: [UInt8]
    /// Expiry, Unix seconds (at most 5 minutes ahead).
    public var expiresAt: Int64

    public init(pairingID: String, outpostKey: [UInt8], credentialHash: [UInt8], expiresAt: Int64) {
        self.pairingID = pairingID
        self.outpostKey = outpostKey
        self.credentialHash = credentialHash
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pairingID = "pairing_id"
        case outpostKey = "outpost_key"
        case credentialHash = "credential_hash"
        case expiresAt = "expires_at"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "pairing registration")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pairingID = try c.decodeString(.pairingID, maxBytes: 22)
        try PairingID.check(pairingID)
        outpostKey = try c.decodeBase64URL(.outpostKey, count: 65)
        credentialHash = try c.decodeBase64URL(.credentialHash, count: 32)
        expiresAt = Int64(try c.decodeUnsigned(.expiresAt))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pairingID, forKey: .pairingID)
        try c.encode(Base64URL.encode(outpostKey), forKey: .outpostKey)
        try c.encode(Base64URL.encode(credentialHash), forKey: .credentialHash)
        try c.encode(expiresAt, forKey: .expiresAt)
    }

    /// The body as JSON, keys in the order of §9.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.string("pairing_id", pairingID)
        w.base64URL("outpost_key", outpostKey)
        w.base64URL("credential_hash", credentialHash)
        w.int("expires_at", expiresAt)
        w.endObject()
        return w.bytes
    }
}
