public import MailwakeCrypto

/// The body of `POST /v1/management/redeem` (PROTOCOL.md §10): the device's
/// signed acceptance of a management invitation.
public struct ManagementConsent: Sendable, Hashable {
    public var deviceID: String
    public var deviceSigningKey: [UInt8]
    public var deviceAgreementKey: [UInt8]
    /// The invitation token (32 bytes).
    public var token: [UInt8]
    /// The requested scopes.
    public var scopes: [ManagementScope]
    /// The invitation expiry (Unix seconds).
    public var expiresAt: Int64
    public var signature: [UInt8]

    public init(deviceID: String, deviceSigningKey: [UInt8], deviceAgreementKey: [UInt8], token: [UInt8], scopes: [ManagementScope],
                expiresAt: Int64, signature: [UInt8]) {
        self.deviceID = deviceID
        self.deviceSigningKey = deviceSigningKey
        self.deviceAgreementKey = deviceAgreementKey
        self.token = token
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.signature = signature
    }

    /// `lp("mailwake/manage-consent/v1") ‖ lp(SHA-256(outpost_pub)) ‖ lp(device_id)
    /// ‖ lp(device_signing_key) ‖ lp(device_agreement_key) ‖ lp(SHA-256(tok))
    /// ‖ lp(sorted scopes joined with ",") ‖ lp(u64be(exp))`.
    public static func signingInput(outpostKey: [UInt8], deviceID: String, deviceSigningKey: [UInt8], deviceAgreementKey: [UInt8],
                                    token: [UInt8], scopes: [ManagementScope], expiresAt: Int64) -> [UInt8] {
        var s = SigningInput(capacity: 320)
        s.lp("mailwake/manage-consent/v1")
        s.lp(SHA256.hash(outpostKey).bytes)
        s.lp(deviceID)
        s.lp(deviceSigningKey)
        s.lp(deviceAgreementKey)
        s.lp(SHA256.hash(token).bytes)
        s.lp(ManagementScope.signedList(scopes))
        s.lp(u64: UInt64(bitPattern: expiresAt))
        return s.bytes
    }

    /// The device side: accepts `link` for `scopes` (all offered ones by default).
    public static func create(for link: ManagementLink, scopes: [ManagementScope]? = nil, signingKey: P256.Signing.PrivateKey,
                              agreementKey: P256.KeyAgreement.PublicKey) throws(ProtocolError) -> ManagementConsent {
        let requested = scopes ?? link.scopes
        let signingPub = signingKey.publicKey.x963Representation
        let deviceID = KeyIdentity.id(of: signingPub)
        let input = signingInput(outpostKey: link.outpostKey, deviceID: deviceID, deviceSigningKey: signingPub,
                                 deviceAgreementKey: agreementKey.x963Representation,
                                 token: link.token, scopes: requested, expiresAt: link.expiresAt)
        do {
            let sig = try signingKey.signature(for: input)
            return ManagementConsent(deviceID: deviceID, deviceSigningKey: signingPub, deviceAgreementKey: agreementKey.x963Representation,
                                     token: link.token, scopes: requested, expiresAt: link.expiresAt, signature: sig.rawRepresentation)
        } catch {
            throw ProtocolError(.internalFailure, "signing the management consent failed")
        }
    }

    /// The outpost side: checks keys, device id, token (constant time),
    /// scopes within the offer, signature and expiry.
    ///
    /// - Parameters:
    ///   - outpostKey: X9.63 outpost identity key.
    ///   - token: the invitation's token.
    ///   - offeredScopes: the scopes the invitation offered.
    ///   - now: Unix seconds.
    @discardableResult
    public func verify(outpostKey: [UInt8], token expected: [UInt8], offeredScopes: [ManagementScope],
                       now: Int64) throws(ProtocolError) -> (signing: P256.Signing.PublicKey, agreement: P256.KeyAgreement.PublicKey) {
        let keys = try PairingConsent.deviceKeys(signing: deviceSigningKey, agreement: deviceAgreementKey, deviceID: deviceID)
        guard ConstantTime.equals(token, expected) else { throw ProtocolError(.badCredential, "token does not match the invitation") }
        for scope in scopes where !offeredScopes.contains(scope) {
            throw ProtocolError(.scopeNotOffered, "scope \(scope.rawValue) was not offered")
        }
        let input = Self.signingInput(outpostKey: outpostKey, deviceID: deviceID, deviceSigningKey: deviceSigningKey,
                                      deviceAgreementKey: deviceAgreementKey,
                                      token: token, scopes: scopes, expiresAt: expiresAt)
        guard let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
              keys.signing.isValidSignature(sig, for: input) else {
            throw ProtocolError(.badSignature, "management consent signature does not verify")
        }
        guard now <= expiresAt else { throw ProtocolError(.expired, "the invitation has expired") }
        return keys
    }

    /// Decodes a redeem body strictly.
    public static func decode(_ json: [UInt8]) throws(ProtocolError) -> ManagementConsent {
        try StrictJSON.decode(ManagementConsent.self, from: json, limits: .init(maxBytes: 4096))
    }

    /// The body as JSON, keys in the order of §10.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.int("v", 1)
        w.string("device_id", deviceID)
        w.base64URL("device_signing_key", deviceSigningKey)
        w.base64URL("device_agreement_key", deviceAgreementKey)
        w.base64URL("token", token)
        w.beginArray("scopes")
        for s in scopes { w.string(nil, s.rawValue) }
        w.endArray()
        w.int("exp", expiresAt)
        w.base64URL("sig", signature)
        w.endObject()
        return w.bytes
    }
}

extension ManagementConsent: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case v, token, scopes, exp, sig
        case deviceID = "device_id"
        case deviceSigningKey = "device_signing_key"
        case deviceAgreementKey = "device_agreement_key"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "management consent")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard try c.decode(Int64.self, forKey: .v) == 1 else { throw ProtocolError.malformed("unsupported consent version") }
        deviceID = try c.decodeString(.deviceID, maxBytes: 22)
        guard KeyIdentity.isWellFormedID(deviceID) else { throw ProtocolError.malformed("device_id must be a 22-character key id") }
        deviceSigningKey = try c.decodeBase64URL(.deviceSigningKey, count: 65)
        deviceAgreementKey = try c.decodeBase64URL(.deviceAgreementKey, count: 65)
        token = try c.decodeBase64URL(.token, count: 32)
        let raw = try c.decode([String].self, forKey: .scopes)
        guard raw.count <= ManagementScope.allCases.count else { throw ProtocolError.malformed("too many scopes") }
        scopes = try ManagementScope.parseList(raw.joined(separator: ","))
        guard !raw.contains(where: { $0.contains(",") }) else { throw ProtocolError.malformed("a scope contains ','") }
        expiresAt = Int64(try c.decodeUnsigned(.exp))
        signature = try c.decodeBase64URL(.sig, count: 64)
    }
}
