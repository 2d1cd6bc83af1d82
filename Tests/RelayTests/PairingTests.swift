import Foundation
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakeProtocol
import StackSupport
import TestSupport
import Testing

@Suite("Relay: pairing rendezvous (PROTOCOL §9)", .serialized, .awaitedCleanup)
struct PairingTests {
    @Test func aPairingDeliversOnlyAfterTheOutpostConfirms() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        #expect(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity).status == .created)
        #expect(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                     body: try device.consent(to: link).jsonBytes).status == .accepted)
        let consented = try outpost.envelope(for: device, pairingID: link.pairingID, content: SimulatedOutpost.sampleContent())
        expectProblem(try await stack.submit(consented), .forbidden, "pairing-not-active")
        let fetched = try await stack.send(.get, "/v1/pairings/\(link.pairingID)/consent", signer: outpost.identity)
        #expect(fetched.status == .ok)
        #expect(try fetched.decode(RelayResponses.Status.self).status == "consented")
        #expect(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/confirm", signer: outpost.identity).status == .ok)
        #expect(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/confirm", signer: outpost.identity).status == .ok)
        #expect(try await stack.submit(consented).status == .accepted)
        _ = try await stack.simulator.waitForDeliveries(count: 1, timeout: 10)
    }

    @Test func registeringAPairingNeedsProofOfPossessionOfTheOutpostKey() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let (registration, _) = try outpost.pairingOffer()
        expectProblem(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: try P256.Signing.PrivateKey()),
                      .unauthorized, "wrong_key")
        expectProblem(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes), .unauthorized, "signature-required")
        let stale = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity,
                                         signedAt: Int64(Date().timeIntervalSince1970) - 400)
        expectProblem(stale, .unauthorized, "clock_skew")
    }

    @Test func aPairingMayLiveFiveMinutesAtMost() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let (tooLong, _) = try outpost.pairingOffer(lifetime: 600)
        expectProblem(try await stack.send(.post, "/v1/pairings", body: tooLong.jsonBytes, signer: outpost.identity), .badRequest,
                      "expiry-too-far")
        let (past, _) = try outpost.pairingOffer(lifetime: -1)
        expectProblem(try await stack.send(.post, "/v1/pairings", body: past.jsonBytes, signer: outpost.identity), .gone, "expired")
    }

    @Test func aRetriedRegistrationIsAcceptedButAnotherOutpostCannotTakeTheID() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let (registration, _) = try outpost.pairingOffer()
        #expect(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity).status == .created)
        #expect(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity).status == .ok)
        let thief = try SimulatedOutpost()
        var stolen = registration
        stolen.outpostKey = thief.publicKey.x963Representation
        expectProblem(try await stack.send(.post, "/v1/pairings", body: stolen.jsonBytes, signer: thief.identity), .conflict,
                      "pairing-exists")
    }

    @Test func aConsentWithTheWrongCredentialIsRefused() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        var forged = link
        forged.credential[0] ^= 1
        expectProblem(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                           body: try device.consent(to: forged).jsonBytes),
                      .unauthorized, "bad_credential")
        // Nothing was used up: the right credential still works.
        #expect(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                     body: try device.consent(to: link).jsonBytes).status == .accepted)
    }

    @Test func theRelayStoresOnlyTheRelayTokensHashNeverTheCredentialOrTheMACKey() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        #expect(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                     body: try device.consent(to: link).jsonBytes).status == .accepted)
        let secrets = try PairingSecrets(credential: link.credential)
        let (hash, consent) = try await stack.relay.app.database.query(
            "SELECT relay_token_hash, consent FROM pairings WHERE pairing_id = \(link.pairingID)").single().decode(([UInt8], [UInt8]).self)
        #expect(hash == secrets.relayTokenHash)
        let dump = try await stack.relay.app.database.query("""
                                                            SELECT row_to_json(p)::text FROM \
                                                            pairings p
                                                            """).map { try $0.decode(String.self) }.joined()
        for secret in [link.credential, SHA256.hash(link.credential).bytes, secrets.macKey.rawBytes, secrets.relayToken] {
            #expect(!dump.contains(Base64URL.encode(secret)) && !dump.contains(Hex.encode(secret)),
                    "the relay's database holds a pairing secret")
            #expect(!String(decoding: consent, as: UTF8.self).contains(Base64URL.encode(secret)))
        }
    }

    @Test func aConsentForAnotherRelayIsRefusedAtThisOne() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        var elsewhere = link
        elsewhere.relay = "https://push.example.org"
        expectProblem(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                           body: try device.consent(to: elsewhere).jsonBytes),
                      .unauthorized, "bad_signature")
    }

    @Test func aRevision1ConsentIsRefusedNamingTheUpgrade() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        let body = String(decoding: try device.consent(to: link).jsonBytes, as: UTF8.self).replacingOccurrences(of: #""v":2,"#,
            with: #""v":1,"#)
        let response = try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent", body: Array(body.utf8))
        #expect(response.status == .badRequest)
        #expect(response.text.contains("upgrade_required") && response.text.contains("update the App"), "\(response.text)")
    }

    @Test func aCredentialIsSingleUse() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let first = try await stack.registeredDevice()
        let second = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        #expect(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                     body: try first.consent(to: link).jsonBytes).status == .accepted)
        expectProblem(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent", body: try second.consent(to: link).jsonBytes),
                      .conflict, "credential-used")
    }

    @Test func anExpiredCredentialIsRefused() async throws {
        let clock = MovableClock()
        let stack = try await RelayStack.start(clockMS: clock.closure, transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer(lifetime: 60)
        try #require(try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes,
                                          signer: outpost.identity).status == .created)
        clock.advance(by: .seconds(61))
        let late = try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent", body: try device.consent(to: link).jsonBytes)
        expectProblem(late, .gone, "expired")
    }

    @Test func aConsentWithAFlippedSignatureBitIsRefused() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        var submission = try device.consent(to: link)
        submission.consent.signature[10] ^= 0x04
        expectProblem(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent", body: submission.jsonBytes), .unauthorized,
                      "bad_signature")
    }

    @Test func aConsentMadeForAnotherOutpostKeyIsRefused() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        var impostorLink = link
        impostorLink.outpostKey = try SimulatedOutpost().publicKey.x963Representation
        expectProblem(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                           body: try device.consent(to: impostorLink).jsonBytes),
                      .unauthorized, "bad_signature")
    }

    @Test func aDeviceUnknownToAccountsCannotConsent() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let stranger = try SimulatedDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        expectProblem(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                           body: try stranger.consent(to: link).jsonBytes),
                      .forbidden, "device-not-registered")
    }

    @Test func theConsentLongPollReturnsAsSoonAsTheDeviceConsents() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        let poll = Task { try await stack.send(.get, "/v1/pairings/\(link.pairingID)/consent?wait=20", signer: outpost.identity) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent",
                                     body: try device.consent(to: link).jsonBytes).status == .accepted)
        let answered = try await poll.value
        #expect(answered.status == .ok)
        let consent = try PairingConsent.decode(Array(try JSONSerialization.data(withJSONObject: stack.json(answered)["consent"] as Any)))
        #expect(consent.deviceID == device.id)
    }

    @Test func theConsentLongPollAnswersPendingWhenNothingArrives() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        let pending = try await stack.send(.get, "/v1/pairings/\(link.pairingID)/consent?wait=1", signer: outpost.identity)
        #expect(pending.status == .accepted)
        #expect(try pending.decode(RelayResponses.Status.self).status == "pending")
        expectProblem(try await stack.send(.get, "/v1/pairings/\(link.pairingID)/consent?wait=31", signer: outpost.identity), .badRequest,
                      "bad-wait")
    }

    @Test func onlyThePairingsOutpostReadsOrConfirmsItsConsent() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        _ = try await stack.send(.post, "/v1/pairings/\(link.pairingID)/consent", body: try device.consent(to: link).jsonBytes)
        let other = try P256.Signing.PrivateKey()
        expectProblem(try await stack.send(.get, "/v1/pairings/\(link.pairingID)/consent", signer: other), .unauthorized, "wrong_key")
        expectProblem(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/confirm", signer: other), .unauthorized, "wrong_key")
        expectProblem(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/confirm", signer: device.signing), .unauthorized,
                      "wrong_key")
        expectProblem(try await stack.send(.get, "/v1/pairings/AAAAAAAAAAAAAAAAAAAAAA/consent", signer: outpost.identity), .notFound,
                      "pairing-not-found")
    }

    @Test func confirmingBeforeAnyConsentIsRefused() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let (registration, link) = try outpost.pairingOffer()
        _ = try await stack.send(.post, "/v1/pairings", body: registration.jsonBytes, signer: outpost.identity)
        expectProblem(try await stack.send(.post, "/v1/pairings/\(link.pairingID)/confirm", signer: outpost.identity), .conflict,
                      "no-consent")
    }

    @Test func anOutpostBlockedAtAccountsCannotRegisterPairings() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let (first, _) = try outpost.pairingOffer()
        #expect(try await stack.send(.post, "/v1/pairings", body: first.jsonBytes, signer: outpost.identity).status == .created)
        let blocked = try await stack.client.execute(.init(
            method: .put, url: stack.accounts.url + "/operator/v1/outposts/\(outpost.id)/block",
            headers: ["Authorization": "Bearer \(AccountsInstance.operatorToken)", "Content-Type": "application/json"],
            body: Array(#"{"reason":"spam"}"#.utf8)))
        #expect(blocked.status == .noContent)
        let (second, _) = try outpost.pairingOffer()
        expectProblem(try await stack.send(.post, "/v1/pairings", body: second.jsonBytes, signer: outpost.identity), .forbidden,
                      "outpost-blocked")
    }

    @Test func eitherSideEndsThePairingAndDeliveryStopsAtOnce() async throws {
        let stack = try await RelayStack.start(transport: .inMemory)
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let byOutpost = try await stack.pair(outpost, device)
        let byDevice = try await stack.pair(outpost, device)
        expectProblem(try await stack.send(.delete, "/v1/pairings/\(byOutpost)", signer: try P256.Signing.PrivateKey()), .unauthorized,
                      "wrong_key")
        #expect(try await stack.send(.delete, "/v1/pairings/\(byOutpost)", signer: outpost.identity).status == .noContent)
        #expect(try await stack.send(.delete, "/v1/pairings/\(byDevice)", signer: device.signing).status == .noContent)
        for pairing in [byOutpost, byDevice] {
            let envelope = try outpost.envelope(for: device, pairingID: pairing, content: SimulatedOutpost.sampleContent())
            expectProblem(try await stack.submit(envelope), .gone, "pairing-ended")
            expectProblem(try await stack.send(.post, "/v1/pairings/\(pairing)/confirm", signer: outpost.identity), .gone, "pairing-ended")
        }
    }
}
