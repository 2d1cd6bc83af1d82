import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

/// Lets through a device-signed request (PROTOCOL.md §8) with an active session (`Mailwake-Session`), touching the
/// session, with the device's `DeviceRecord` as the principal.
///
/// The device is the path's `{id}`, or the signer on routes without one (`/v1/purchases`): a device may only act on itself.
struct DeviceSessionAuthentication: HTTPMiddleware {
    let gate: SignedRequestGate
    let devices: DeviceStore
    let sessions: DeviceSessionStore
    let clock: @Sendable () -> Int64

    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
        let device = try await authenticate(request, context)
        var context = context
        context.principal = Principal(.device, id: device.deviceID, record: device)
        return try await next(request, context)
    }

    private func authenticate(_ request: HTTPRequest, _ context: RequestContext) async throws -> DeviceRecord {
        let header = try gate.header(of: request)
        let id = context.parameters["id"] ?? header.keyID
        guard header.keyID == id else {
            throw HTTPError(.forbidden, code: .wrongDevice, detail: "a device may only act on itself")
        }
        guard let device = try await devices.load(id), device.deletedAt == nil else {
            throw HTTPError(.notFound, code: .deviceNotFound, detail: "no such device")
        }
        let key = try P256.Signing.PublicKey(x963Representation: device.signingKey)
        try await gate.verify(request, key: key)
        guard device.blockedAt == nil else { throw HTTPError(.forbidden, code: .deviceBlocked,
                                                             detail: "this device is blocked by the operator") }
        guard let session = request.headers["Mailwake-Session"] else {
            throw HTTPError(.unauthorized, code: .sessionRequired,
                            detail: "device calls carry Mailwake-Session: the session_id registration answered")
        }
        switch try await sessions.touch(session, deviceID: id, clientAddress: request.remoteAddress, now: clock()) {
        case .active: return device
        case .revoked: throw HTTPError(.unauthorized, code: .sessionRevoked, detail: "this session was revoked")
        case .unknown: throw HTTPError(.unauthorized, code: .sessionUnknown, detail: "no such session for this device")
        }
    }
}
