import AccountsService
import Foundation
import MailwakeHTTPTypes
import TestSupport
import Testing

/// A copied device key is stopped by revoking sessions or deleting the device (issue 16 §6).
@Suite("Accounts: sessions and deletion against a copied key", .serialized, .awaitedCleanup)
struct SessionSecurityTests {
    @Test func aRevokedSessionStopsACopiedKey() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        let owner = try await f.registeredSession(device)

        // The thief holds a copy of the key and nothing else.
        let noSession = try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing, withoutSession: true)
        #expect(noSession.status == .unauthorized, "a device call without Mailwake-Session is refused")
        #expect(noSession.text.contains("urn:mailwake:problem:session-required"))
        let keyOnly = try await f.send(.post, "/v1/devices", json: device.registrationJSON(), signer: device.signing, withoutSession: true)
        #expect(keyOnly.status == .conflict, "a key alone opens no session while the owner holds one")
        #expect(keyOnly.text.contains("urn:mailwake:problem:device-registered"))

        // A session the thief did get (say, copied with the key): the owner revokes it.
        let stolen = try await f.registeredSession(device)
        #expect(try await f.send(.delete, "/v1/devices/\(device.id)/sessions/\(stolen)", signer: device.signing,
                                 headers: ["Mailwake-Session": owner]).status == .noContent)
        let afterRevoke = try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing,
                                           headers: ["Mailwake-Session": stolen])
        #expect(afterRevoke.status == .unauthorized)
        #expect(afterRevoke.text.contains("urn:mailwake:problem:session-revoked"))
        let reopen = try await f.send(.post, "/v1/devices", json: device.registrationJSON(), signer: device.signing,
                                      headers: ["Mailwake-Session": stolen])
        #expect(reopen.status == .conflict, "a revoked session does not open another")
        let purchase = try await f.send(.post, "/v1/purchases", json: #"{"signed_transaction":"x.y.z"}"#, signer: device.signing,
                                        withoutSession: true)
        #expect(purchase.status == .unauthorized, "purchases are device calls too")

        // The owner's own session keeps working.
        #expect(try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing,
                                 headers: ["Mailwake-Session": owner]).status == .ok)
        let unknown = try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing,
                                       headers: ["Mailwake-Session": "AAAAAAAAAAAAAAAAAAAAAA"])
        #expect(unknown.text.contains("urn:mailwake:problem:session-unknown"))
    }

    @Test func aDeviceWithoutAnActiveSessionOpensOneWithItsKey() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        let only = try await f.registeredSession(device)
        #expect(try await f.send(.delete, "/v1/devices/\(device.id)/sessions/\(only)", signer: device.signing).status == .noContent)
        // The App lost or revoked every session but kept its key: registering again opens one.
        let again = try await f.register(device, withoutSession: true)
        #expect(again.status == .ok)
        #expect(try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing).status == .ok)
    }

    @Test func aDeletedDeviceComesBackOnlyWithItsRecoveryCode() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        let deleted = try await f.send(.delete, "/v1/devices/\(device.id)", signer: device.signing)
        #expect(deleted.status == .ok)
        let code = try deleted.decode(AccountsResponses.Deleted.self).recoveryCode
        #expect(code.count == 43)

        // The copied key alone (with or without the revoked session) does not undelete.
        let keyOnly = try await f.register(device)
        #expect(keyOnly.status == .gone)
        #expect(keyOnly.text.contains("urn:mailwake:problem:device-deleted"))
        let wrong = try await f.register(device, recoveryCode: "not-the-code")
        #expect(wrong.status == .forbidden)
        #expect(wrong.text.contains("urn:mailwake:problem:recovery-code-invalid"))
        #expect(try await !f.authorization(of: device).active, "still deleted for the relay")
        #expect(try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing).status == .notFound)

        // The App's recovery step: the code restores the device, once, with a new session.
        let recovered = try await f.register(device, recoveryCode: code)
        #expect(recovered.status == .ok)
        #expect(try await f.authorization(of: device).active)
        #expect(try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing).status == .ok)

        // Deleted again: the first code is spent.
        #expect(try await f.send(.delete, "/v1/devices/\(device.id)", signer: device.signing).status == .ok)
        #expect(try await f.register(device, recoveryCode: code).status == .forbidden)
    }
}
