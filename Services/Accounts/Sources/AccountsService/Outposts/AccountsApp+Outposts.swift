import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

/// The body of `POST /v1/outposts`.
struct OutpostRegistration: Decodable, Sendable {
    var outpostKey: [UInt8]
    enum CodingKeys: String, CodingKey, CaseIterable { case outpostKey = "outpost_key" }
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "outpost registration")
        outpostKey = try DeviceFields.key(decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .outpostKey),
                                          field: "outpost_key")
    }
}

extension AccountsApp {
    func addOutpostRoutes(to router: inout Router) {
        router.post("/v1/outposts") { [self] request, context in
            let body = try request.decodeJSON(OutpostRegistration.self)
            let outpostID = KeyIdentity.id(of: try await gate.verifyFirstContact(request, key: body.outpostKey, field: "outpost_key"))
            let (summary, created) = try await registerOutpost(key: body.outpostKey)
            guard !summary.blocked else { throw HTTPError(.forbidden, code: .outpostBlocked,
                                                          detail: "this outpost is blocked by the operator") }
            if created { context.logger.info("outpost registered", ["outpost_id": .string(outpostID)]) }
            return try .json(summary, status: created ? .created : .ok)
        }
    }

    /// Records `key` (or refreshes its last contact) and tells whether it is new.
    func registerOutpost(key: [UInt8]) async throws -> (OutpostSummary, created: Bool) {
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key) else {
            throw ProtocolError(.invalidKey, "outpost_key is not a point on P-256")
        }
        return try await outpostStore.register(KeyIdentity.id(of: publicKey), key: key, now: clock())
    }
}
