import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

/// Lets through a request signed (PROTOCOL.md §8) by the outpost of the pairing the path names, with the
/// `PairingRecord` as the principal; 404 for an unknown pairing, `wrong_key` for another outpost's signature.
struct PairingOutpostAuthorization: HTTPMiddleware {
    let gate: SignedRequestGate
    let pairings: PairingStore
    /// The path parameter holding the pairing id (`id`, `pairing_id`).
    let parameter: String

    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
        let header = try gate.header(of: request)
        guard let pairing = try await pairings.load(try context.parameter(parameter)) else { throw RelayApp.pairingNotFound }
        guard header.keyID == pairing.outpostID else { throw ProtocolError(.wrongKey, "this pairing belongs to another outpost") }
        try await gate.verify(request, key: try pairing.outpostPublicKey)
        var context = context
        context.principal = Principal(.outpost, id: pairing.outpostID, record: pairing)
        return try await next(request, context)
    }
}
