import MailwakeCrypto
import MailwakePostgres
import MailwakeProtocol

/// One row of `pairings`, as read; never changed afterwards.
///
/// A class: the pairings cache hands the same record to every envelope of the pairing, on the listener's threads
/// and PostgreSQL's, and copying a reference is one reference count where copying the fields was ten, each on memory
/// the other threads touch too.
final class PairingRecord: Sendable {
    let pairingID: String
    let outpostID: String
    /// X9.63 outpost identity key pinned at registration.
    let outpostKey: [UInt8]
    /// `SHA-256(relay_token)` registered by the outpost (PROTOCOL.md §9).
    let relayTokenHash: [UInt8]
    let expiresAt: Int64
    let state: PairingState
    let deviceID: String?
    /// The device's consent exactly as it submitted it (JSON).
    let consent: [UInt8]?
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

    convenience init(row: PostgresRow) throws {
        let (pairingID, outpostID, outpostKey, relayTokenHash, expiresAt, state, deviceID, consent) =
            try row.decode((String, String, [UInt8], [UInt8], Int64, String, String?, [UInt8]?).self)
        guard let state = PairingState(rawValue: state) else { throw PostgresError(.decoding, "unknown pairing state") }
        self.init(pairingID: pairingID, outpostID: outpostID, outpostKey: outpostKey, relayTokenHash: relayTokenHash,
                  expiresAt: expiresAt, state: state, deviceID: deviceID, consent: consent)
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
