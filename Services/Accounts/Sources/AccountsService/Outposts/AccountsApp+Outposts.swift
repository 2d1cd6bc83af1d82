import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol

/// The body of `POST /v1/outposts`.
struct OutpostRegistration: Decodable, Sendable {
    var outpostKey: [UInt8]
    enum CodingKeys: String, CodingKey, CaseIterable { case outpostKey = "outpost_key" }
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "outpost registration")
        outpostKey = try DeviceFields.key(decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .outpostKey), field: "outpost_key")
    }
}

extension AccountsApp {
    func addOutpostRoutes(to router: inout Router) {
        router.post("/v1/outposts") { [self] request, context in
            let body = try request.decodeJSON(OutpostRegistration.self)
            let outpostID = KeyIdentity.id(of: try await gate.verifyFirstContact(request, key: body.outpostKey, field: "outpost_key"))
            let (summary, created) = try await registerOutpost(key: body.outpostKey)
            guard !summary.blocked else { throw HTTPError(.forbidden, code: "outpost-blocked", detail: "this outpost is blocked by the operator") }
            if created { context.logger.info("outpost registered", ["outpost_id": .string(outpostID)]) }
            return try .json(summary, status: created ? .created : .ok)
        }
    }

    /// Records `key` (or refreshes its last contact) and tells whether it is new.
    func registerOutpost(key: [UInt8]) async throws -> (OutpostSummary, created: Bool) {
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key) else {
            throw ProtocolError(.invalidKey, "outpost_key is not a point on P-256")
        }
        let outpostID = KeyIdentity.id(of: publicKey)
        let now = clock()
        let rows = try await database.query("""
            INSERT INTO outposts (outpost_id, public_key, created_at, last_seen_at) VALUES (\(outpostID), \(key), \(now), \(now))
            ON CONFLICT (outpost_id) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at
            RETURNING created_at, blocked_at, (xmax = 0)
            """)
        let (created, blocked, inserted) = try rows.single().decode((Int64, Int64?, Bool).self)
        return (OutpostSummary(outpostID: outpostID, publicKey: Base64URL.encode(key), blocked: blocked != nil, createdAt: created), inserted)
    }

    func loadOutpost(_ id: String) async throws -> OutpostSummary? {
        let rows = try await database.query("SELECT public_key, blocked_at, created_at FROM outposts WHERE outpost_id = \(id)")
        guard let row = rows.first else { return nil }
        let (key, blocked, created) = try row.decode(([UInt8], Int64?, Int64).self)
        return OutpostSummary(outpostID: id, publicKey: Base64URL.encode(key), blocked: blocked != nil, createdAt: created)
    }
}
