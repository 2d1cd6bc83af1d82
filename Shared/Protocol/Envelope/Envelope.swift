/// The signed, encrypted envelope an outpost submits and the relay forwards
/// (PROTOCOL.md §5).
public struct Envelope: Sendable, Hashable {
    /// The protocol version carried in `v`.
    public static let version: Int64 = 1
    /// The largest accepted ciphertext (with tag). An envelope that fits an
    /// APNs payload of 4096 bytes is always below this.
    public static let maxCiphertextBytes = 3072
    /// The largest accepted envelope document.
    public static let maxJSONBytes = 8192

    /// The bound context fields (`alg`, `aud`, `pairing_id`, `event_id`,
    /// `kind`, `iat`, `activity`).
    public var context: EncryptionContext
    /// `epk`: the ephemeral public key, X9.63 (65 bytes).
    public var ephemeralPublicKey: [UInt8]
    /// `salt`: 32 bytes.
    public var salt: [UInt8]
    /// `nonce`: 12 bytes.
    public var nonce: [UInt8]
    /// `ct`: ciphertext‖tag.
    public var ciphertext: [UInt8]
    /// `sig`: raw ECDSA `r‖s` by the outpost identity key.
    public var signature: [UInt8]

    public init(context: EncryptionContext, ephemeralPublicKey: [UInt8], salt: [UInt8], nonce: [UInt8], ciphertext: [UInt8],
                signature: [UInt8]) {
        self.context = context
        self.ephemeralPublicKey = ephemeralPublicKey
        self.salt = salt
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.signature = signature
    }

    /// The bytes the outpost signs (§4):
    /// `lp("mailwake/envelope/v1") ‖ lp(context) ‖ lp(epk) ‖ lp(salt) ‖ lp(nonce) ‖ lp(ct)`.
    public var signingInput: [UInt8] {
        Self.signingInput(context: context.bytes, epk: ephemeralPublicKey, salt: salt, nonce: nonce, ct: ciphertext)
    }

    static func signingInput(context: [UInt8], epk: [UInt8], salt: [UInt8], nonce: [UInt8], ct: [UInt8]) -> [UInt8] {
        var s = SigningInput(capacity: 200 + context.count + ct.count)
        s.lp("mailwake/envelope/v1")
        s.lp(context)
        s.lp(epk)
        s.lp(salt)
        s.lp(nonce)
        s.lp(ct)
        return s.bytes
    }

    /// Checks lengths and context shape (not the signature).
    public func validateShape() throws(ProtocolError) {
        try context.validate()
        guard ephemeralPublicKey.count == 65 else { throw .malformed("epk must be 65 bytes") }
        guard salt.count == 32 else { throw .malformed("salt must be 32 bytes") }
        guard nonce.count == 12 else { throw .malformed("nonce must be 12 bytes") }
        guard ciphertext.count >= 16 else { throw .malformed("ct is shorter than its 16-byte tag") }
        guard ciphertext.count <= Self.maxCiphertextBytes else { throw ProtocolError(.tooLarge,
                                                                                     "ct is longer than " +
                                                                                     "\(Self.maxCiphertextBytes) bytes") }
        guard signature.count == 64 else { throw .malformed("sig must be 64 bytes") }
    }

    /// The envelope as JSON, keys in the order of §5, no spaces.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter(capacity: 400 + ciphertext.count * 4 / 3)
        write(to: &w)
        return w.bytes
    }

    func write(to w: inout JSONWriter, key: String? = nil) {
        w.beginObject(key)
        w.int("v", Self.version)
        w.string("alg", context.alg)
        w.string("aud", context.aud)
        w.string("pairing_id", context.pairingID)
        w.string("event_id", context.eventID)
        w.string("kind", context.kind.rawValue)
        w.uint("iat", context.iat)
        w.base64URL("epk", ephemeralPublicKey)
        w.base64URL("salt", salt)
        w.base64URL("nonce", nonce)
        w.base64URL("ct", ciphertext)
        w.base64URL("sig", signature)
        if let activity = context.activity { activity.write(to: &w, key: "activity") }
        w.endObject()
    }

    /// Decodes and shape-checks an envelope document strictly: unknown fields,
    /// duplicate keys, non-integers, wrong lengths and a `v` other than 1 are
    /// refused.
    public static func decode(_ json: [UInt8]) throws(ProtocolError) -> Envelope {
        try decodeNotingForm(json).envelope
    }

    /// `decode`, and whether `json` is the envelope's canonical form, exactly the bytes `jsonBytes` writes (the
    /// relay then copies them into the APNs payload instead of writing them again).
    public static func decodeNotingForm(_ json: [UInt8]) throws(ProtocolError) -> (envelope: Envelope, canonical: Bool) {
        if let scanned = EnvelopeScanner.scanned(json) { return scanned }
        return (try decodeGenerally(json), false)
    }

    /// `decode` without `EnvelopeScanner`: every document through `StrictJSON`, and every refusal worded.
    static func decodeGenerally(_ json: [UInt8]) throws(ProtocolError) -> Envelope {
        let fields = try StrictJSON.Fields(StrictJSON.parse(json, limits: .init(maxBytes: maxJSONBytes)), allowed: fieldNames,
                                           in: "envelope")
        let envelope = try Envelope(source: fields)
        try envelope.validateShape()
        return envelope
    }

    /// The keys of an envelope document.
    static let fieldNames = CodingKeys.allCases.map(\.rawValue)

    /// Reads the fields of an envelope document (one pass, no `Decodable`:
    /// this is the relay's hot path).
    init(source c: some EnvelopeFieldSource) throws(ProtocolError) {
        guard try c.int64(.v) == Self.version else { throw .malformed("unsupported envelope version") }
        let alg = try c.string(.alg, maxBytes: 64)
        guard alg == EncryptionContext.algorithm else { throw .malformed("alg must be \(EncryptionContext.algorithm)") }
        guard let kind = EnvelopeKind(rawValue: try c.string(.kind, maxBytes: 32)) else {
            throw .malformed("kind must be notification or live-activity")
        }
        let activity = try c.activity()
        context = EncryptionContext(
            aud: try c.string(.aud, maxBytes: EncryptionContext.maxAudienceBytes),
            pairingID: try c.string(.pairingID, maxBytes: 22),
            eventID: try c.string(.eventID, maxBytes: 36),
            kind: kind,
            iat: try c.unsigned(.iat),
            activity: activity,
            alg: alg
        )
        ephemeralPublicKey = try c.base64URL(.epk, count: 65)
        salt = try c.base64URL(.salt, count: 32)
        nonce = try c.base64URL(.nonce, count: 12)
        ciphertext = try c.base64URL(.ct, range: 16...Self.maxCiphertextBytes)
        signature = try c.base64URL(.sig, count: 64)
    }
}

extension Envelope: Encodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case v, alg, aud, kind, iat, epk, salt, nonce, ct, sig, activity
        case pairingID = "pairing_id"
        case eventID = "event_id"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.version, forKey: .v)
        try c.encode(context.alg, forKey: .alg)
        try c.encode(context.aud, forKey: .aud)
        try c.encode(context.pairingID, forKey: .pairingID)
        try c.encode(context.eventID, forKey: .eventID)
        try c.encode(context.kind, forKey: .kind)
        try c.encode(context.iat, forKey: .iat)
        try c.encode(Base64URL.encode(ephemeralPublicKey), forKey: .epk)
        try c.encode(Base64URL.encode(salt), forKey: .salt)
        try c.encode(Base64URL.encode(nonce), forKey: .nonce)
        try c.encode(Base64URL.encode(ciphertext), forKey: .ct)
        try c.encode(Base64URL.encode(signature), forKey: .sig)
        try c.encodeIfPresent(context.activity, forKey: .activity)
    }
}
