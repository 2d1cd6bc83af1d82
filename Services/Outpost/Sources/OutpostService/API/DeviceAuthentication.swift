import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

/// Lets through requests signed (PROTOCOL.md §8) by a device whose keys this outpost locked and that holds
/// `scope`, with the device as the request's principal; answers 401 or 403 otherwise.
struct DeviceAuthentication: HTTPMiddleware {
    /// What handlers behind this middleware read with `context.authenticated(AuthenticatedDevice.self)`.
    struct AuthenticatedDevice: Sendable {
        let device: KnownDevice
        /// The grant of `scope` the device holds.
        let permission: DevicePermission
    }

    let gate: SignedRequestGate
    let store: OutpostStore
    let scope: ManagementScope

    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
        let header = try gate.header(of: request)
        guard let device = try await store.knownDevice(header.keyID) else {
            throw HTTPError(.unauthorized, code: .unknownDevice, detail: "this outpost has not locked the keys of the signing device")
        }
        let key: P256.Signing.PublicKey
        do { key = try P256.Signing.PublicKey(x963Representation: device.signingKey) } catch {
            throw HTTPError(.internalServerError, code: .internalError, detail: "the device's stored key is unusable")
        }
        try await gate.verify(request, key: key)
        guard let permission = device.permission(scope) else {
            throw HTTPError(.forbidden, code: .permissionMissing, detail: "the device does not hold the \(scope.rawValue) permission")
        }
        var context = context
        context.principal = Principal(.device, id: device.deviceID, record: AuthenticatedDevice(device: device, permission: permission))
        return try await next(request, context)
    }
}
