/// The encryption context that binds an envelope to its audience, pairing,
/// event, kind and time (PROTOCOL.md §3). It is the AES-GCM AAD and part of
/// the HKDF info and of the signed bytes.
public struct EncryptionContext: Sendable, Hashable {
    /// The only algorithm of protocol version 1.
    public static let algorithm = "P256-HKDF-SHA256-A256GCM"
    /// The longest audience accepted, in UTF-8 bytes.
    public static let maxAudienceBytes = 256

    public var alg: String
    /// The relay's public origin, e.g. `https://push.example.net`.
    public var aud: String
    public var pairingID: String
    public var eventID: String
    public var kind: EnvelopeKind
    /// Issued-at time, Unix seconds.
    public var iat: UInt64
    /// Present exactly when `kind == .liveActivity`.
    public var activity: ActivityInfo?

    public init(aud: String, pairingID: String, eventID: String, kind: EnvelopeKind, iat: UInt64, activity: ActivityInfo? = nil,
                alg: String = EncryptionContext.algorithm) {
        self.alg = alg
        self.aud = aud
        self.pairingID = pairingID
        self.eventID = eventID
        self.kind = kind
        self.iat = iat
        self.activity = activity
    }

    /// Checks the field shapes that every party relies on.
    public func validate() throws(ProtocolError) {
        guard alg == Self.algorithm else { throw .malformed("alg must be \(Self.algorithm)") }
        guard !aud.isEmpty else { throw .malformed("aud is empty") }
        guard aud.utf8.count <= Self.maxAudienceBytes else { throw ProtocolError(.tooLarge,
                                                                                 "aud is longer than \(Self.maxAudienceBytes) bytes") }
        try PairingID.check(pairingID)
        try EventID.check(eventID)
        switch (kind, activity) {
        case (.notification, nil), (.liveActivity, .some): break
        case (.notification, .some): throw .malformed("activity is present but kind is notification")
        case (.liveActivity, nil): throw .malformed("kind live-activity needs activity")
        }
        if let activity, !ActivityInfo.isValidID(activity.id) {
            throw .malformed("activity.id has characters outside A-Z a-z 0-9 - _ .")
        }
    }

    /// The context bytes of §3.
    public var bytes: [UInt8] {
        var s = SigningInput(capacity: 160)
        s.lp("mailwake/ctx/v1")
        s.lp(alg)
        s.lp(aud)
        s.lp(pairingID)
        s.lp(eventID)
        s.lp(kind.rawValue)
        s.lp(u64: iat)
        if kind == .liveActivity, let a = activity {
            s.lp(a.id)
            s.lp(a.event.rawValue)
            s.lp(u64: a.timestamp)
            s.lp(u64: a.staleDate)
            s.lp(u64: a.dismissalDate)
        }
        return s.bytes
    }
}
