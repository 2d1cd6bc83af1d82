import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

extension RelayApp {
    /// The most mailboxes a heartbeat may count.
    static let maxHeartbeatMailboxes = 100_000

    func addHeartbeatRoutes(to router: inout Router) {
        router.post("/v1/outposts/{outpost_id}/heartbeat") { [self] request, context in
            let outpostID = try context.parameter("outpost_id")
            let header = try gate.header(of: request)
            guard header.keyID == outpostID else { throw ProtocolError(.wrongKey, "keyid must be the outpost id of the path") }
            // An outpost whose pairings have all ended gets no row (QueueMaintenance prunes the one it had).
            guard let key = try await pairingStore.activeOutpostKey(of: outpostID)
            else { throw HTTPError(.notFound, code: .outpostNotPaired, detail: "this relay has no active pairing of this outpost") }
            guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key) else {
                throw HTTPError(.notFound, code: .outpostNotPaired, detail: "this relay has no pairing of this outpost")
            }
            try await gate.verify(request, key: publicKey)
            let body = try request.decodeJSON(HeartbeatBody.self, maxBytes: 1024)
            guard (0...Self.maxHeartbeatMailboxes).contains(body.mailboxes), (0...Self.maxHeartbeatMailboxes).contains(body.failing) else {
                throw HTTPError(.badRequest, code: .invalidHeartbeat,
                                detail: "mailboxes and failing are counts from 0 to \(Self.maxHeartbeatMailboxes)")
            }
            let queued = try await heartbeatStore.record(outpostID: outpostID, body, nowMS: clockMS(),
                                                         queueAlerts: configuration.silenceAlerts,
                                                         maxAge: configuration.maxEnvelopeAge)
            if !queued.isEmpty {
                context.logger.info("outpost alert queued",
                                    ["outpost_id": .string(outpostID), "type": .string(queued.map(\.rawValue).joined(separator: ","))])
            }
            return .empty(.noContent)
        }
    }
}
