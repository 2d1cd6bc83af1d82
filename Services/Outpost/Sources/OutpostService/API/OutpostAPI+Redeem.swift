import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

extension OutpostAPI {
    /// `POST /v1/management/redeem` (§10): the device's signed consent to an
    /// invitation. First contact: the body carries the device's keys and the
    /// request must verify under them. Grants exactly the requested scopes
    /// within those offered; push is completed through the relay by `invite`.
    func redeem(_ request: HTTPRequest) async throws -> HTTPResponse {
        let consent = try ManagementConsent.decode(request.body)
        // The invitation first: verifying the signature records its nonce, and a
        // request without a real token must not make the outpost write anything.
        let tokenHash = SHA256.hash(consent.token).bytes
        guard let invitation = try await store.invitation(tokenHash: tokenHash),
              ConstantTime.equals(invitation.tokenHash, tokenHash) else {
            throw HTTPError(.unauthorized, code: .badCredential, detail: "no invitation has this token")
        }
        try await gate.verifyFirstContact(request, key: consent.deviceSigningKey, field: "device_signing_key")
        try consent.verify(outpostKey: identity.publicKey, token: consent.token, offeredScopes: invitation.scopes, now: clock())
        guard consent.expiresAt == invitation.expiresAt else {
            throw HTTPError(.unauthorized, code: .badCredential, detail: "exp does not match the invitation")
        }
        guard invitation.redeemedAt == nil else { throw HTTPError(.conflict, code: .invitationUsed,
                                                                  detail: "the invitation was already used") }
        guard clock() <= invitation.expiresAt else { throw HTTPError(.gone, code: .expired, detail: "the invitation has expired") }
        let granted: [ManagementScope]
        do {
            granted = try await store.redeemInvitation(tokenHash: tokenHash, consent: consent)
        } catch let error as OutpostError {
            throw HTTPError(.conflict, code: .redeemRefused, detail: error.message)
        }
        var w = JSONWriter()
        w.beginObject()
        w.string("outpost_id", identity.id)
        w.string("device_id", consent.deviceID)
        w.beginArray("granted")
        for scope in granted { w.string(nil, scope.rawValue) }
        w.endArray()
        w.bool("push_pending", consent.scopes.contains(.push))
        w.endObject()
        return .json(bytes: w.bytes)
    }
}
