import MailwakeCrypto

/// A management invitation (PROTOCOL.md §10):
/// `mailwake://manage?v=1&ok=…&url=…&pin=…&tok=…&scope=…&exp=…`, followed by
/// `relay, env, pid, cred` exactly when `push` is offered.
public struct ManagementLink: Sendable, Hashable {
    /// The push-pairing part of an invitation that offers `push`.
    public struct PushOffer: Sendable, Hashable {
        public var relay: String
        public var environment: PushEnvironment
        public var pairingID: String
        public var credential: [UInt8]

        public init(relay: String, environment: PushEnvironment, pairingID: String, credential: [UInt8]) {
            self.relay = relay
            self.environment = environment
            self.pairingID = pairingID
            self.credential = credential
        }
    }

    /// The outpost identity public key (X9.63).
    public var outpostKey: [UInt8]
    /// The outpost's HTTPS origin.
    public var url: String
    /// SHA-256 of the outpost TLS certificate's SubjectPublicKeyInfo.
    public var pin: [UInt8]
    /// The one-time 32-byte token.
    public var token: [UInt8]
    /// The offered scopes, in link order.
    public var scopes: [ManagementScope]
    /// Expiry, Unix seconds.
    public var expiresAt: Int64
    /// Present exactly when `scopes` contains `push`.
    public var push: PushOffer?

    public init(outpostKey: [UInt8], url: String, pin: [UInt8], token: [UInt8], scopes: [ManagementScope], expiresAt: Int64,
                push: PushOffer? = nil) {
        self.outpostKey = outpostKey
        self.url = url
        self.pin = pin
        self.token = token
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.push = push
    }

    /// The link string.
    public var link: String {
        var s = "mailwake://manage?v=1&ok=\(Base64URL.encode(outpostKey))&url=\(LinkQuery.encode(url))&pin=\(Base64URL.encode(pin))" +
                "&tok=\(Base64URL.encode(token))&scope=\(scopes.map(\.rawValue).joined(separator: ","))&exp=\(expiresAt)"
        if let push {
            s += "&relay=\(LinkQuery.encode(push.relay))&env=\(push.environment.rawValue)&pid=\(push.pairingID)" +
                 "&cred=\(Base64URL.encode(push.credential))"
        }
        return s
    }

    /// The push-pairing link equivalent of the `push` offer, for the relay step.
    public var pairingLink: PairingLink? {
        push.map { PairingLink(outpostKey: outpostKey, relay: $0.relay, environment: $0.environment, pairingID: $0.pairingID,
                               credential: $0.credential, expiresAt: expiresAt) }
    }

    /// Parses and validates a management link.
    public static func parse(_ link: String) throws(ProtocolError) -> ManagementLink {
        let params = try LinkQuery.parse(link, host: "manage")
        try PairingLink.checkVersion(params, expected: "1")
        let base: Set<String> = ["v", "ok", "url", "pin", "tok", "scope", "exp"]
        let pushKeys: Set<String> = ["relay", "env", "pid", "cred"]
        let dict = try PairingLink.collect(params, allowed: base.union(pushKeys), required: base)
        let scopes = try ManagementScope.parseList(dict["scope"]!)
        let url = dict["url"]!
        try LinkQuery.checkOrigin(url, field: "url")
        var push: PushOffer?
        let presentPushKeys = pushKeys.filter { dict[$0] != nil }
        if scopes.contains(.push) {
            guard presentPushKeys.count == pushKeys.count else { throw .malformed("a link offering push needs relay, env, pid and cred") }
            let relay = dict["relay"]!
            try LinkQuery.checkOrigin(relay, field: "relay")
            push = PushOffer(relay: relay, environment: try PairingLink.parseEnvironment(dict["env"]!),
                             pairingID: try PairingLink.parsePairingID(dict["pid"]!),
                             credential: try Base64URL.decode(dict["cred"]!, field: "cred", count: 32))
        } else if !presentPushKeys.isEmpty {
            throw .malformed("push-pairing parameters present but push is not offered")
        }
        return ManagementLink(
            outpostKey: try PairingLink.parseOutpostKey(dict["ok"]!), url: url,
            pin: try Base64URL.decode(dict["pin"]!, field: "pin", count: 32),
            token: try Base64URL.decode(dict["tok"]!, field: "tok", count: 32),
            scopes: scopes, expiresAt: try PairingLink.parseTime(dict["exp"]!, field: "exp"), push: push)
    }
}
