import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol

extension RelayApp {
    /// `GET /v1/devices/{device_id}/envelopes` (PROTOCOL.md §12): a device reads its catch-up log.
    func addCatchUpRoutes(to router: inout Router) {
        router.get("/v1/devices/{device_id}/envelopes") { [self] request, context in
            let deviceID = try context.parameter("device_id")
            let header = try gate.header(of: request)
            guard header.keyID == deviceID else {
                throw HTTPError(.forbidden, code: "not-this-device", detail: "only the device itself may read its catch-up log")
            }
            let query = try CatchUpQuery(request)
            guard let key = try await deviceSigningKey(deviceID) else {
                throw HTTPError(.forbidden, code: "device-not-paired", detail: "this device has no pairing at this relay")
            }
            try await gate.verify(request, key: key)
            return .json(bytes: try await catchUpPage(deviceID: deviceID, query: query))
        }
    }

    /// The device's signing key, from the consent of its most recent pairing (an active one first).
    func deviceSigningKey(_ deviceID: String) async throws -> P256.Signing.PublicKey? {
        var bindings = PostgresBindings()
        bindings.append(deviceID)
        let row = try await database.query(PostgresQuery(unsafeSQL: """
            SELECT \(PairingRecord.columns) FROM pairings WHERE device_id = $1 AND consent IS NOT NULL
            ORDER BY (state = 'active') DESC, consented_at DESC NULLS LAST LIMIT 1
            """, bindings: bindings)).first
        return try row.map(PairingRecord.init(row:))?.deviceSigningKey
    }

    /// `{"envelopes":[…],"more":bool}`: kept envelopes of active pairings, in
    /// acceptance order, after `query.after`, within `CATCHUP_RETENTION` and
    /// the device's newest `CATCHUP_LIMIT` (whatever pruning has not reached yet).
    func catchUpPage(deviceID: String, query: CatchUpQuery) async throws -> [UInt8] {
        var b = PostgresBindings()
        b.append(deviceID)
        b.append(query.after ?? "")
        b.append(clockMS() - configuration.catchupRetention * 1000)
        b.append(Int64(max(configuration.catchupLimit, 1) - 1))
        b.append(Int64(query.limit + 1))
        b.append(configuration.catchupLimit > 0)
        // An `after` that is not (or no longer) in the log reads from the oldest kept.
        let rows = try await database.query(PostgresQuery(unsafeSQL: """
            WITH floor AS (
                SELECT GREATEST(
                    COALESCE((SELECT max(seq) FROM catchup_envelopes WHERE device_id = $1 AND event_id = $2), 0),
                    COALESCE((SELECT seq - 1 FROM catchup_envelopes WHERE device_id = $1 ORDER BY seq DESC OFFSET $4 LIMIT 1), 0)) AS seq
            )
            SELECT c.envelope FROM catchup_envelopes c, floor f
            WHERE $6::bool AND c.device_id = $1 AND c.seq > f.seq AND c.accepted_ms >= $3
              AND EXISTS (SELECT 1 FROM pairings p WHERE p.pairing_id = c.pairing_id AND p.state = 'active' AND p.device_id = $1)
            ORDER BY c.seq
            LIMIT $5
            """, bindings: b))
        let envelopes = try rows.prefix(query.limit).map { try $0.decode([UInt8].self, at: 0) }
        var out: [UInt8] = Array(#"{"envelopes":["#.utf8)
        out.reserveCapacity(envelopes.reduce(64) { $0 + $1.count + 1 })
        for (i, envelope) in envelopes.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: envelope)
        }
        out.append(contentsOf: Array(#"],"more":\#(rows.count > query.limit)}"#.utf8))
        return out
    }
}
