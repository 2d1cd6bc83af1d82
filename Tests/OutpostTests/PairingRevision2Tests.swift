import Foundation
import MailwakeCrypto
import MailwakePostgres
import MailwakeProtocol
import OutpostService
import StackSupport
import TestSupport
import Testing

/// PROTOCOL.md §9 revision 2 from the outpost's side, against a real relay:
/// the consent's MAC keeps a relay from pairing its own keys, the owner
/// confirms the fingerprint, and an invitation's push goes only to its redeemer.
@Suite("Outpost: pairing revision 2 against a malicious relay", .serialized, .awaitedCleanup)
struct PairingRevision2Tests {
    /// The relay's row for a pairing, as its operator (or an attacker with its database) reads it.
    static func relayRow(_ stack: RelayStack, _ pairingID: String) async throws -> (state: String, relayTokenHash: [UInt8]) {
        try await stack.relay.app.database.query("SELECT state, relay_token_hash FROM pairings WHERE pairing_id = \(pairingID)").single()
            .decode((String, [UInt8]).self)
    }

    @Test func aMaliciousRelayThatSwapsInItsOwnKeysIsRefusedAndThePairingEnds() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let offer = try await outpost.pairing.offer()
        let scanned = try PairingLink.parse(offer.link.link)
        // The real App consents; the relay now holds everything it stores and receives.
        let submission = try device.consent(to: scanned)
        #expect(try await stack.send(.post, "/v1/pairings/\(scanned.pairingID)/consent", body: submission.jsonBytes).status == .accepted)
        let stored = try await Self.relayRow(stack, scanned.pairingID)
        #expect(stored.relayTokenHash == SHA256.hash(submission.relayToken).bytes)

        // The relay makes its own device keys and a consent that passes every check it can make itself,
        // its best MAC keyed with what it knows (the relay token), and answers the outpost with it.
        let attacker = try SimulatedDevice()
        let attackerKey = attacker.signing.publicKey.x963Representation
        var forged = try PairingConsent.create(for: PairingLink(outpostKey: scanned.outpostKey, relay: scanned.relay,
                                                                environment: scanned.environment,
                                                                pairingID: scanned.pairingID, credential: try SecureRandom.bytes(32),
                                                                expiresAt: scanned.expiresAt),
                                               signingKey: attacker.signing, agreementKey: attacker.agreement.publicKey)
        forged.mac = HMACSHA256.authenticationCode(for: forged.consentInput(outpostKey: scanned.outpostKey, audience: scanned.relay),
                                                   key: submission.relayToken)
        try forged.verifySignature(outpostKey: scanned.outpostKey, audience: RelayInstance.origin, pairingID: scanned.pairingID,
                                   now: Int64(Date().timeIntervalSince1970))
        _ = try await stack.relay.app.database.execute("""
            UPDATE pairings SET consent = \(forged.jsonBytes), device_id = \(KeyIdentity.id(of: attackerKey))
                WHERE pairing_id = \(scanned.pairingID)
            """)

        do {
            _ = try await outpost.pairing.complete(offer, approval: OutpostFixture.confirmingOwner)
            Issue.record("the outpost confirmed a consent the relay made")
        } catch let error as OutpostError {
            #expect(error.code == .pairing)
            #expect(error.message.contains("forged consent"), "\(error.message)")
            #expect(error.message.contains("The pairing was ended at the relay"), "\(error.message)")
        }
        #expect(try await Self.relayRow(stack, scanned.pairingID).state == "ended")
        #expect(try await outpost.store.pairings().isEmpty)
        #expect(try await outpost.store.knownDevice(attacker.id) == nil)
        let confirm = try await stack.send(.post, "/v1/pairings/\(scanned.pairingID)/confirm", signer: outpost.identity.signingKey)
        #expect(confirm.status == .gone || confirm.status == .conflict, "an ended pairing cannot be confirmed any more")
    }

    @Test func theOwnerSeesTheDevicesFingerprintAndDecliningEndsThePairing() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let offer = try await outpost.pairing.offer()
        let shown = Flag()
        let completing = Task {
            try await outpost.pairing.complete(offer, approval: .owner { consent in
                #expect(KeyIdentity.fingerprint(of: consent.deviceSigningKey)
                            == KeyIdentity.fingerprint(of: device.signing.publicKey.x963Representation))
                shown.set()
                return false
            })
        }
        let scanned = try PairingLink.parse(offer.link.link)
        #expect(try await stack.send(.post, "/v1/pairings/\(scanned.pairingID)/consent",
                                     body: try device.consent(to: scanned).jsonBytes).status == .accepted)
        await #expect { _ = try await completing.value } throws: { ($0 as? OutpostError)?.message.contains("was not confirmed") == true }
        #expect(shown.isSet)
        #expect(try await Self.relayRow(stack, scanned.pairingID).state == "ended")
        #expect(try await outpost.store.pairings().isEmpty)
    }

    @Test func anInvitationsPushConsentFromAnotherDeviceThanTheRedeemerIsRefused() async throws {
        let stack = try await RelayStack.start()
        let redeemer = try await stack.registeredDevice()
        let other = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let invitations = OutpostInvitations(store: outpost.store, identity: outpost.identity)
        let invitation = try await invitations.create(scopes: [.manage, .push], mailboxIDs: nil, origin: "https://127.0.0.1:8443",
                                                      pin: [UInt8](repeating: 1, count: 32), pairing: outpost.pairing)
        let link = try ManagementLink.parse(invitation.link.link)
        let pairingLink = try #require(link.pairingLink)
        let offer = try #require(invitation.pairing)
        // The invited device redeems at the outpost; someone else who saw the code consents to the push pairing first.
        let consent = try ManagementConsent.create(for: link, scopes: [.manage, .push], signingKey: redeemer.signing,
                                                   agreementKey: redeemer.agreement.publicKey)
        _ = try await outpost.store.redeemInvitation(tokenHash: invitation.tokenHash, consent: consent)
        #expect(try await stack.send(.post, "/v1/pairings/\(pairingLink.pairingID)/consent",
                                     body: try other.consent(to: pairingLink).jsonBytes).status == .accepted)

        do {
            _ = try await outpost.pairing.complete(offer, approval: .redeemer(invitationTokenHash: invitation.tokenHash))
            Issue.record("the push consent of a device that did not redeem was confirmed")
        } catch let error as OutpostError {
            #expect(error.message.contains("refused the push consent of device \(other.id)"), "\(error.message)")
            #expect(error.message.contains(redeemer.id), "\(error.message)")
        }
        #expect(try await Self.relayRow(stack, pairingLink.pairingID).state == "ended")
        #expect(try await outpost.store.pairings().isEmpty)
        // The relay refuses the redeemer's consent now (the pairing ended), and says so clearly.
        let late = try await stack.send(.post, "/v1/pairings/\(pairingLink.pairingID)/consent",
                                        body: try redeemer.consent(to: pairingLink).jsonBytes)
        #expect(late.status == .conflict)
    }

    @Test func anInvitationsPushConsentFromTheRedeemerIsConfirmed() async throws {
        let stack = try await RelayStack.start()
        let redeemer = try await stack.registeredDevice()
        let outpost = try await OutpostFixture.start(relayURL: stack.relay.url)
        let invitations = OutpostInvitations(store: outpost.store, identity: outpost.identity)
        let invitation = try await invitations.create(scopes: [.content, .push], mailboxIDs: nil, origin: "https://127.0.0.1:8443",
                                                      pin: [UInt8](repeating: 1, count: 32), pairing: outpost.pairing)
        let link = try ManagementLink.parse(invitation.link.link)
        let pairingLink = try #require(link.pairingLink)
        let completing = Task { try await outpost.pairing.complete(try #require(invitation.pairing),
                                                                   approval: .redeemer(invitationTokenHash: invitation.tokenHash)) }
        // The consent may reach the relay before the redemption reaches the outpost: the outpost waits for the redemption.
        #expect(try await stack.send(.post, "/v1/pairings/\(pairingLink.pairingID)/consent",
                                     body: try redeemer.consent(to: pairingLink).jsonBytes).status == .accepted)
        let consent = try ManagementConsent.create(for: link, scopes: [.content, .push], signingKey: redeemer.signing,
                                                   agreementKey: redeemer.agreement.publicKey)
        _ = try await outpost.store.redeemInvitation(tokenHash: invitation.tokenHash, consent: consent)
        let paired = try await completing.value
        #expect(paired.deviceID == redeemer.id)
        #expect(try await Self.relayRow(stack, pairingLink.pairingID).state == "active")
    }
}
