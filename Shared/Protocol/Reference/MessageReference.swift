public import MailwakeCrypto

/// A signed message reference: the resource scope for body reading (PROTOCOL.md §7).
///
/// `ref = b64u(ref_payload) "." b64u(sig)` with `sig` by the outpost identity
/// key over `lp("mailwake/ref/v1") ‖ lp(ref_payload)`. The payload is compact
/// JSON with keys in the order `v, o, d, m, f, uv, u, iat`.
public struct MessageReference: Sendable, Hashable {
    /// The longest accepted reference string.
    public static let maxLength = 1024

    /// `o`: the issuing outpost id.
    public var outpostID: String
    /// `d`: the device the reference was issued for.
    public var deviceID: String
    /// `m`: the outpost's mailbox id.
    public var mailboxID: String
    /// `f`: the folder name.
    public var folder: String
    /// `uv`: the folder's UIDVALIDITY.
    public var uidValidity: UInt32
    /// `u`: the message UID.
    public var uid: UInt32
    /// `iat`: issued-at time, Unix seconds.
    public var iat: UInt64

    public init(outpostID: String, deviceID: String, mailboxID: String, folder: String, uidValidity: UInt32, uid: UInt32, iat: UInt64) {
        self.outpostID = outpostID
        self.deviceID = deviceID
        self.mailboxID = mailboxID
        self.folder = folder
        self.uidValidity = uidValidity
        self.uid = uid
        self.iat = iat
    }

    /// The exact payload bytes that are signed.
    public var payloadBytes: [UInt8] {
        var w = JSONWriter(capacity: 160)
        w.beginObject()
        w.int(Keys.v.rawValue, 1)
        w.string(Keys.o.rawValue, outpostID)
        w.string(Keys.d.rawValue, deviceID)
        w.string(Keys.m.rawValue, mailboxID)
        w.string(Keys.f.rawValue, folder)
        w.uint(Keys.uv.rawValue, UInt64(uidValidity))
        w.uint(Keys.u.rawValue, UInt64(uid))
        w.uint(Keys.iat.rawValue, iat)
        w.endObject()
        return w.bytes
    }

    /// `lp("mailwake/ref/v1") ‖ lp(payload)`.
    public static func signingInput(payload: [UInt8]) -> [UInt8] {
        var s = SigningInput(capacity: payload.count + 24)
        s.lp("mailwake/ref/v1")
        s.lp(payload)
        return s.bytes
    }

    /// Signs the reference with the outpost identity key and returns the `ref` string.
    public func sign(with identity: P256.Signing.PrivateKey) throws(ProtocolError) -> String {
        let payload = payloadBytes
        let sig: P256.Signing.ECDSASignature
        do { sig = try identity.signature(for: Self.signingInput(payload: payload)) } catch {
            throw ProtocolError(.internalFailure, "signing the reference failed")
        }
        let ref = Base64URL.encode(payload) + "." + Base64URL.encode(sig.rawRepresentation)
        guard ref.utf8.count <= Self.maxLength else { throw ProtocolError(.tooLarge,
                                                                          "reference longer than \(Self.maxLength) characters") }
        return ref
    }

    /// Verifies `ref` as the outpost does: its own signature, payload shape,
    /// `o` its own id, `d` the requesting device.
    ///
    /// - Parameters:
    ///   - ref: the reference string from the request.
    ///   - outpostKey: this outpost's identity public key.
    ///   - deviceID: the device making the signed request.
    public static func verify(_ ref: String, outpostKey: P256.Signing.PublicKey,
                              deviceID: String) throws(ProtocolError) -> MessageReference {
        guard ref.utf8.count <= maxLength else { throw ProtocolError(.tooLarge, "reference longer than \(maxLength) characters") }
        let parts = ref.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Base64URL.decode(parts[0]), let sigBytes = Base64URL.decode(parts[1]) else {
            throw .malformed("ref must be two base64url parts joined by '.'")
        }
        guard sigBytes.count == 64, let sig = try? P256.Signing.ECDSASignature(rawRepresentation: sigBytes) else {
            throw .malformed("ref signature must be 64 bytes")
        }
        guard outpostKey.isValidSignature(sig, for: signingInput(payload: payload)) else {
            throw ProtocolError(.badSignature, "ref signature does not verify under this outpost's key")
        }
        let decoded = try StrictJSON.decode(MessageReference.self, from: payload, limits: .init(maxBytes: maxLength))
        guard decoded.outpostID == KeyIdentity.id(of: outpostKey) else {
            throw ProtocolError(.wrongKey, "ref was issued by another outpost")
        }
        guard decoded.deviceID == deviceID else {
            throw ProtocolError(.wrongKey, "ref was issued for another device")
        }
        return decoded
    }

    enum Keys: String, CodingKey, CaseIterable {
        case v, o, d, m, f, uv, u, iat
    }
}

extension MessageReference: Decodable {
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(Keys.allCases.map(\.rawValue)), in: "ref")
        let c = try decoder.container(keyedBy: Keys.self)
        guard try c.decode(Int64.self, forKey: .v) == 1 else { throw ProtocolError.malformed("unsupported ref version") }
        outpostID = try c.decodeString(.o, maxBytes: 22)
        deviceID = try c.decodeString(.d, maxBytes: 22)
        mailboxID = try c.decodeString(.m, maxBytes: 64)
        folder = try c.decodeString(.f, maxBytes: 512)
        uidValidity = try c.decode(UInt32.self, forKey: .uv)
        uid = try c.decode(UInt32.self, forKey: .u)
        iat = try c.decodeUnsigned(.iat)
    }
}
