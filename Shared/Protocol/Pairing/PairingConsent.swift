public import MailwakeCrypto

/// A device's consent to pair with an outpost (PROTOCOL.md §9 step 3, revision 2):
/// signed by the device, and MACed with the key only the outpost and a device
/// that scanned its code can derive.
public struct PairingConsent: Sendable, Hashable {
    /// The consent version this code speaks.
    public static let version: Int64 = 2

    public var pairingID: String
    /// The device id (§2) of `deviceSigningKey`.
    public var deviceID: String
    /// X9.63 device signing public key.
    public var deviceSigningKey: [UInt8]
    /// X9.63 device key-agreement public key.
    public var deviceAgreementKey: [UInt8]
    /// The pairing expiry copied from the link (Unix seconds).
    public var expiresAt: Int64
    /// Raw ECDSA `r‖s` by the device signing key over the consent input.
    public var signature: [UInt8]
    /// `HMAC-SHA256(mac_key, consent_input)`, 32 bytes.
    public var mac: [UInt8]

    public init(pairingID: String, deviceID: String, deviceSigningKey: [UInt8], deviceAgreementKey: [UInt8], expiresAt: Int64,
                signature: [UInt8], mac: [UInt8]) {
        self.pairingID = pairingID
        self.deviceID = deviceID
        self.deviceSigningKey = deviceSigningKey
        self.deviceAgreementKey = deviceAgreementKey
        self.expiresAt = expiresAt
        self.signature = signature
        self.mac = mac
    }

    /// `lp("mailwake/consent/v2") ‖ lp(pairing_id) ‖ lp(SHA-256(outpost_pub)) ‖ lp(aud)
    /// ‖ lp(device_id) ‖ lp(device_signing_key) ‖ lp(device_agreement_key) ‖ lp(u64be(exp))`.
    public static func consentInput(pairingID: String, outpostKey: [UInt8], audience: String, deviceID: String, deviceSigningKey: [UInt8],
                                    deviceAgreementKey: [UInt8], expiresAt: Int64) -> [UInt8] {
        var s = SigningInput(capacity: 320)
        s.lp("mailwake/consent/v2")
        s.lp(pairingID)
        s.lp(SHA256.hash(outpostKey).bytes)
        s.lp(audience)
        s.lp(deviceID)
        s.lp(deviceSigningKey)
        s.lp(deviceAgreementKey)
        s.lp(u64: UInt64(bitPattern: expiresAt))
        return s.bytes
    }

    /// This consent's input bound to `outpostKey` and `audience`.
    public func consentInput(outpostKey: [UInt8], audience: String) -> [UInt8] {
        Self.consentInput(pairingID: pairingID, outpostKey: outpostKey, audience: audience, deviceID: deviceID,
                          deviceSigningKey: deviceSigningKey,
                          deviceAgreementKey: deviceAgreementKey, expiresAt: expiresAt)
    }

    /// The device side: consents to `link` with the device's keys.
    public static func create(for link: PairingLink, signingKey: P256.Signing.PrivateKey,
                              agreementKey: P256.KeyAgreement.PublicKey) throws(ProtocolError) -> PairingConsent {
        let signingPub = signingKey.publicKey.x963Representation
        let deviceID = KeyIdentity.id(of: signingPub)
        let input = consentInput(pairingID: link.pairingID, outpostKey: link.outpostKey, audience: link.relay, deviceID: deviceID,
                                 deviceSigningKey: signingPub, deviceAgreementKey: agreementKey.x963Representation,
                                 expiresAt: link.expiresAt)
        let secrets = try PairingSecrets(credential: link.credential)
        do {
            let sig = try signingKey.signature(for: input)
            return PairingConsent(pairingID: link.pairingID, deviceID: deviceID, deviceSigningKey: signingPub,
                                  deviceAgreementKey: agreementKey.x963Representation, expiresAt: link.expiresAt,
                                  signature: sig.rawRepresentation, mac: secrets.mac(input))
        } catch {
            throw ProtocolError(.internalFailure, "signing the consent failed")
        }
    }

    /// The relay side: checks everything but the MAC, which it cannot.
    ///
    /// Order: both keys valid points, `device_id` matches the signing key,
    /// `pairing_id` is the expected one, the signature binds the outpost key,
    /// the audience and the expiry, the expiry is the pairing's, and `exp`
    /// has not passed.
    ///
    /// - Parameters:
    ///   - outpostKey: X9.63 outpost identity key.
    ///   - audience: the relay's origin (`aud`).
    ///   - pairingID: the pairing being completed.
    ///   - expectedExpiry: the pairing's own expiry, when the verifier knows it.
    ///   - now: Unix seconds.
    /// - Returns: the device's validated public keys.
    @discardableResult
    public func verifySignature(outpostKey: [UInt8], audience: String, pairingID expected: String, expectedExpiry: Int64? = nil,
                                now: Int64) throws(ProtocolError) -> (signing: P256.Signing.PublicKey,
                                                                      agreement: P256.KeyAgreement.PublicKey) {
        let keys = try Self.deviceKeys(signing: deviceSigningKey, agreement: deviceAgreementKey, deviceID: deviceID)
        guard pairingID == expected else { throw ProtocolError(.wrongPairing, "consent is for another pairing") }
        let input = consentInput(outpostKey: outpostKey, audience: audience)
        guard let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
              keys.signing.isValidSignature(sig, for: input) else {
            throw ProtocolError(.badSignature, "consent signature does not verify for this outpost, relay and expiry")
        }
        if let expectedExpiry, expectedExpiry != expiresAt { throw ProtocolError(.expired, "consent expiry differs from the pairing's") }
        guard now <= expiresAt else { throw ProtocolError(.expired, "the pairing credential has expired") }
        return keys
    }

    /// The outpost side, holding the credential's keys: the MAC first (constant
    /// time), then everything `verifySignature` checks.
    ///
    /// A `bad_mac` failure means the consent was not made by a device that
    /// scanned this outpost's code: the relay, or someone on its path, made it.
    @discardableResult
    public func verify(outpostKey: [UInt8], secrets: PairingSecrets, audience: String, pairingID: String, expectedExpiry: Int64? = nil,
                       now: Int64) throws(ProtocolError) -> (signing: P256.Signing.PublicKey, agreement: P256.KeyAgreement.PublicKey) {
        guard mac.count == 32, secrets.isValidMAC(mac, for: consentInput(outpostKey: outpostKey, audience: audience)) else {
            throw ProtocolError(.badMAC, "the consent's mac does not verify: it was not made with this pairing's credential")
        }
        return try verifySignature(outpostKey: outpostKey, audience: audience, pairingID: pairingID, expectedExpiry: expectedExpiry,
                                   now: now)
    }

    static func deviceKeys(signing: [UInt8], agreement: [UInt8],
                           deviceID: String) throws(ProtocolError) -> (signing: P256.Signing.PublicKey,
                                                                       agreement: P256.KeyAgreement.PublicKey) {
        guard let s = try? P256.Signing.PublicKey(x963Representation: signing) else {
            throw ProtocolError(.invalidKey, "device_signing_key is not a valid P-256 point")
        }
        guard let a = try? P256.KeyAgreement.PublicKey(x963Representation: agreement) else {
            throw ProtocolError(.invalidKey, "device_agreement_key is not a valid P-256 point")
        }
        guard KeyIdentity.id(of: signing) == deviceID else {
            throw ProtocolError(.wrongKey, "device_id does not match device_signing_key")
        }
        return (s, a)
    }

    /// Decodes a consent strictly.
    public static func decode(_ json: [UInt8]) throws(ProtocolError) -> PairingConsent {
        try StrictJSON.decode(PairingConsent.self, from: json, limits: .init(maxBytes: 4096))
    }

    /// The consent as JSON, keys in the order of §9.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        write(to: &w)
        return w.bytes
    }

    func write(to w: inout JSONWriter, key: String? = nil) {
        w.beginObject(key)
        w.int("v", Self.version)
        w.string("pairing_id", pairingID)
        w.string("device_id", deviceID)
        w.base64URL("device_signing_key", deviceSigningKey)
        w.base64URL("device_agreement_key", deviceAgreementKey)
        w.int("exp", expiresAt)
        w.base64URL("sig", signature)
        w.base64URL("mac", mac)
        w.endObject()
    }
}

extension PairingConsent: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case v, exp, sig, mac
        case pairingID = "pairing_id"
        case deviceID = "device_id"
        case deviceSigningKey = "device_signing_key"
        case deviceAgreementKey = "device_agreement_key"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "consent")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let v = try c.decode(Int64.self, forKey: .v)
        guard v != 1 else {
            throw ProtocolError(.upgradeRequired,
                                "this consent is pairing revision 1, which any relay could forge: update the App to pair with this " +
                                "outpost")
        }
        guard v == Self.version else { throw ProtocolError.malformed("unsupported consent version \(v)") }
        pairingID = try c.decodeString(.pairingID, maxBytes: 22)
        try PairingID.check(pairingID)
        deviceID = try c.decodeString(.deviceID, maxBytes: 22)
        guard KeyIdentity.isWellFormedID(deviceID) else { throw ProtocolError.malformed("device_id must be a 22-character key id") }
        deviceSigningKey = try c.decodeBase64URL(.deviceSigningKey, count: 65)
        deviceAgreementKey = try c.decodeBase64URL(.deviceAgreementKey, count: 65)
        expiresAt = Int64(try c.decodeUnsigned(.exp))
        signature = try c.decodeBase64URL(.sig, count: 64)
        mac = try c.decodeBase64URL(.mac, count: 32)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.version, forKey: .v)
        try c.encode(pairingID, forKey: .pairingID)
        try c.encode(deviceID, forKey: .deviceID)
        try c.encode(Base64URL.encode(deviceSigningKey), forKey: .deviceSigningKey)
        try c.encode(Base64URL.encode(deviceAgreementKey), forKey: .deviceAgreementKey)
        try c.encode(expiresAt, forKey: .exp)
        try c.encode(Base64URL.encode(signature), forKey: .sig)
        try c.encode(Base64URL.encode(mac), forKey: .mac)
    }
}
