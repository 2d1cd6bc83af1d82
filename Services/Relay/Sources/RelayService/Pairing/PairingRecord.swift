import MailwakeCrypto
import MailwakePostgres
import MailwakeProtocol

/// One row of `pairings`.
struct PairingRecord: Sendable {
    var pairingID: String
    var outpostID: String
    /// X9.63 outpost identity key pinned at registration.
    var outpostKey: [UInt8]
    /// `SHA-256(relay_token)` registered by the outpost (PROTOCOL.md §9).
    var relayTokenHash: [UInt8]
    var expiresAt: Int64
    var state: PairingState
    var deviceID: String?
    /// The device's consent exactly as it submitted it (JSON).
    var consent: [UInt8]?
    /// `outpostKey` parsed once (intake verifies every envelope with it).
    private let parsedOutpostKey: P256.Signing.PublicKey?

    static let columns = "pairing_id, outpost_id, outpost_key, relay_token_hash, expires_at, state, device_id, consent"

    init(pairingID: String, outpostID: String, outpostKey: [UInt8], relayTokenHash: [UInt8], expiresAt: Int64, state: PairingState,
         deviceID: String? = nil, consent: [UInt8]? = nil) {
        self.pairingID = pairingID
        self.outpostID = outpostID
        self.outpostKey = outpostKey
        self.relayTokenHash = relayTokenHash
        self.expiresAt = expiresAt
        self.state = state
        self.deviceID = deviceID
        self.consent = consent
        parsedOutpostKey = try? P256.Signing.PublicKey(x963Representation: outpostKey)
    }

    init(row: PostgresRow) throws {
        let state: String
        (pairingID, outpostID, outpostKey, relayTokenHash, expiresAt, state, deviceID, consent) =
            try row.decode((String, String, [UInt8], [UInt8], Int64, String, String?, [UInt8]?).self)
        guard let s = PairingState(rawValue: state) else { throw PostgresError(.decoding, "unknown pairing state") }
        self.state = s
        parsedOutpostKey = try? P256.Signing.PublicKey(x963Representation: outpostKey)
    }

    /// The outpost's verifying key.
    var outpostPublicKey: P256.Signing.PublicKey {
        get throws {
            guard let parsedOutpostKey else { throw ProtocolError(.invalidKey, "the pinned outpost key is not a P-256 point") }
            return parsedOutpostKey
        }
    }

    /// The paired device's signing key, from its consent.
    var deviceSigningKey: P256.Signing.PublicKey? {
        guard let consent, let decoded = try? PairingConsent.decode(consent) else { return nil }
        return try? P256.Signing.PublicKey(x963Representation: decoded.deviceSigningKey)
    }
}
