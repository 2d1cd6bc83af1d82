import MailwakeCrypto

/// The push-pairing QR code / link (PROTOCOL.md §9, revision 2):
/// `mailwake://pair?v=2&ok=…&relay=…&env=…&pid=…&cred=…&exp=…`
public struct PairingLink: Sendable, Hashable {
    /// The outpost identity public key (X9.63).
    public var outpostKey: [UInt8]
    /// The relay origin; it is the envelope audience.
    public var relay: String
    public var environment: PushEnvironment
    public var pairingID: String
    /// The one-time 32-byte credential; only values derived from it reach the relay.
    public var credential: [UInt8]
    /// Expiry, Unix seconds.
    public var expiresAt: Int64

    public init(outpostKey: [UInt8], relay: String, environment: PushEnvironment, pairingID: String, credential: [UInt8],
                expiresAt: Int64) {
        self.outpostKey = outpostKey
        self.relay = relay
        self.environment = environment
        self.pairingID = pairingID
        self.credential = credential
        self.expiresAt = expiresAt
    }

    /// The link string, parameters in the order of §9.
    public var link: String {
        "mailwake://pair?v=\(Self.version)&ok=\(Base64URL.encode(outpostKey))&relay=\(LinkQuery.encode(relay))" +
            "&env=\(environment.rawValue)&pid=\(pairingID)&cred=\(Base64URL.encode(credential))&exp=\(expiresAt)"
    }

    /// The link version this code speaks.
    public static let version = "2"

    /// The fingerprint of `ok` the App shows before consent.
    public var outpostFingerprint: String { KeyIdentity.fingerprint(of: outpostKey) }

    /// Parses and validates a pairing link: every parameter present once, `v`
    /// first and equal to 2, `ok` a valid P-256 point, `relay` an origin.
    public static func parse(_ link: String) throws(ProtocolError) -> PairingLink {
        let params = try LinkQuery.parse(link, host: "pair")
        try checkVersion(params, expected: version, upgrade: [
            "1": "this pairing code is revision 1, which any relay could forge: upgrade the outpost (mailwake-outpost) and run " +
                 "`pair` again",
        ])
        let allowed: Set<String> = ["v", "ok", "relay", "env", "pid", "cred", "exp"]
        let dict = try collect(params, allowed: allowed, required: allowed)
        return try PairingLink(
            outpostKey: parseOutpostKey(dict["ok"]!),
            relay: dict["relay"]!, environment: parseEnvironment(dict["env"]!),
            pairingID: parsePairingID(dict["pid"]!),
            credential: Base64URL.decode(dict["cred"]!, field: "cred", count: 32),
            expiresAt: parseTime(dict["exp"]!, field: "exp")).checked()
    }

    private func checked() throws(ProtocolError) -> PairingLink {
        try LinkQuery.checkOrigin(relay, field: "relay")
        return self
    }

    /// Checks that `v` comes first and is `expected`; a version in `upgrade` is refused with its message.
    static func checkVersion(_ params: [(String, String)], expected: String, upgrade: [String: String] = [:]) throws(ProtocolError) {
        guard let first = params.first, first.0 == "v" else { throw .malformed("link must start with v") }
        if let message = upgrade[first.1] { throw ProtocolError(.upgradeRequired, message) }
        guard first.1 == expected else { throw .malformed("unsupported link version \(first.1)") }
    }

    static func collect(_ params: [(String, String)], allowed: Set<String>,
                        required: Set<String>) throws(ProtocolError) -> [String: String] {
        var dict: [String: String] = [:]
        for (k, v) in params {
            guard allowed.contains(k) else { throw .malformed("link has unknown parameter \(k)") }
            dict[k] = v
        }
        for k in required.sorted() where dict[k] == nil { throw .malformed("link is missing parameter \(k)") }
        return dict
    }

    static func parseOutpostKey(_ s: String) throws(ProtocolError) -> [UInt8] {
        let bytes = try Base64URL.decode(s, field: "ok", count: 65)
        guard (try? P256.Signing.PublicKey(x963Representation: bytes)) != nil else {
            throw ProtocolError(.invalidKey, "ok is not a valid P-256 point")
        }
        return bytes
    }

    static func parseEnvironment(_ s: String) throws(ProtocolError) -> PushEnvironment {
        guard let env = PushEnvironment(rawValue: s) else { throw .malformed("env must be production or sandbox") }
        return env
    }

    static func parsePairingID(_ s: String) throws(ProtocolError) -> String {
        try PairingID.check(s, field: "pid")
        return s
    }

    static func parseTime(_ s: String, field: String) throws(ProtocolError) -> Int64 {
        guard !s.isEmpty, s.utf8.count <= 12, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int64(s) else {
            throw .malformed("\(field) must be Unix seconds")
        }
        return n
    }
}
