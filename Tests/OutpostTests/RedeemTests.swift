import Foundation
import MailwakeCrypto
import MailwakeDeviceKit
import MailwakeHTTPClient
import MailwakeProtocol
@testable import OutpostService
import StackSupport
import TestSupport
import Testing

/// Management invitations (PROTOCOL.md §10) are redeemed once, before they
/// expire, for scopes they offered, with a consent the device signed.
@Suite("Outpost: redeeming management invitations", .serialized, .awaitedCleanup)
struct RedeemTests {
    @Test func redeemingGrantsExactlyTheRequestedScopesAndLocksTheKeys() async throws {
        let h = try await OutpostAPIHarness.start()
        let device = try SimulatedDevice()
        let session = try h.session(device)
        let response = try await session.redeem(try await h.invite([.content, .manage]), scopes: [.content],
                                                agreement: device.agreement.publicKey)
        #expect(response.status == .ok, "\(response.text)")
        let redeemed = try response.decode(OutpostResponses.Redeemed.self)
        #expect(redeemed.granted == ["content"])
        #expect(redeemed.outpostID == h.identity.id)
        let known = try #require(try await h.store.knownDevice(device.id))
        #expect(known.scopes == [.content])
        #expect(known.agreementKey == device.agreement.publicKey.x963Representation)
        #expect(try await h.store.adminLog().first?.action == "redeem")
    }

    @Test func anInvitationIsUsedOnce() async throws {
        let h = try await OutpostAPIHarness.start()
        let link = try await h.invite([.content])
        let device = try SimulatedDevice()
        let session = try h.session(device)
        #expect(try await session.redeem(link, agreement: device.agreement.publicKey).status == .ok)
        let again = try await session.redeem(link, agreement: device.agreement.publicKey)
        #expect(again.status == .conflict)
        #expect(again.problemCode == "invitation-used")
    }

    @Test func anExpiredInvitationIsRefused() async throws {
        let h = try await OutpostAPIHarness.start()
        let token = try SecureRandom.bytes(32)
        let past = Int64(Date().timeIntervalSince1970) - 10
        try await h.store.createInvitation(Invitation(tokenHash: SHA256.hash(token).bytes, scopes: [.content], mailboxIDs: nil,
                                                      pairingID: nil,
                                                      createdAt: past - 300, expiresAt: past), actor: "test")
        let link = ManagementLink(outpostKey: h.identity.publicKey, url: h.origin, pin: h.pin, token: token, scopes: [.content],
                                  expiresAt: past)
        let device = try SimulatedDevice()
        let response = try await h.session(device).redeem(link, agreement: device.agreement.publicKey)
        #expect(response.status == .gone)
        #expect(response.problemCode == "expired")
    }

    @Test func aScopeThatWasNotOfferedIsRefused() async throws {
        let h = try await OutpostAPIHarness.start()
        let device = try SimulatedDevice()
        let response = try await h.session(device).redeem(try await h.invite([.content]), scopes: [.manage],
                                                          agreement: device.agreement.publicKey)
        #expect(response.status == .forbidden)
        #expect(response.problemCode == "scope_not_offered")
        #expect(try await h.store.knownDevice(device.id) == nil)
    }

    @Test func aConsentWithAFlippedBitIsRefused() async throws {
        let h = try await OutpostAPIHarness.start()
        let device = try SimulatedDevice()
        let link = try await h.invite([.content])
        var consent = try ManagementConsent.create(for: link, signingKey: device.signing, agreementKey: device.agreement.publicKey)
        consent.signature[7] ^= 0x01
        let response = try await h.session(device).send(.post, "/v1/management/redeem", body: consent.jsonBytes)
        #expect(response.status == .unauthorized)
        #expect(response.problemCode == "bad_signature")
    }

    @Test func aTokenNoInvitationHasIsRefused() async throws {
        let h = try await OutpostAPIHarness.start()
        var link = try await h.invite([.content])
        link.token = try SecureRandom.bytes(32)
        let device = try SimulatedDevice()
        let response = try await h.session(device).redeem(link, agreement: device.agreement.publicKey)
        #expect(response.status == .unauthorized)
        #expect(response.problemCode == "bad_credential")
    }

    @Test func theRequestMustBeSignedByTheKeyInTheConsent() async throws {
        let h = try await OutpostAPIHarness.start()
        let device = try SimulatedDevice()
        let consent = try ManagementConsent.create(for: try await h.invite([.content]), signingKey: device.signing,
                                                   agreementKey: device.agreement.publicKey)
        let response = try await h.session(device).send(.post, "/v1/management/redeem", body: consent.jsonBytes,
                                                        signer: P256.Signing.PrivateKey())
        #expect(response.status == .unauthorized)
        #expect(response.problemCode == "wrong_key")
    }

    @Test(arguments: ["", "{", "[]", "{\"v\":1}", "{\"v\":2,\"device_id\":\"x\"}"])
    func malformedConsentsAreRefusedClearly(_ body: String) async throws {
        let h = try await OutpostAPIHarness.start()
        let response = try await h.session(try SimulatedDevice()).send(.post, "/v1/management/redeem", body: Array(body.utf8))
        #expect(response.status == .badRequest || response.status == .unauthorized, "\(response.status.code) \(response.text)")
        #expect(response.headers["Content-Type"] == "application/problem+json")
    }

    @Test func aDeviceCannotComeBackWithOtherKeys() async throws {
        let h = try await OutpostAPIHarness.start()
        let device = try SimulatedDevice()
        let session = try h.session(device)
        #expect(try await session.redeem(try await h.invite([.content]), agreement: device.agreement.publicKey).status == .ok)
        let other = try P256.KeyAgreement.PrivateKey().publicKey
        let again = try await session.redeem(try await h.invite([.manage]), agreement: other)
        #expect(again.status == .conflict)
        #expect(again.problemCode == "redeem-refused")
        #expect(try await h.store.knownDevice(device.id)?.scopes == [.content])
    }
}
