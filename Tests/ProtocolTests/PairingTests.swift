import Foundation
import MailwakeCrypto
import MailwakeProtocol
import TestSupport
import Testing

@Suite("Pairing and management links and consents (PROTOCOL §9, §10)")
struct PairingTests {
    let f: Fixtures
    let credential: [UInt8]
    let now: Int64 = 1_764_400_000
    init() throws {
        f = try Fixtures()
        credential = try SecureRandom.bytes(32)
    }

    var link: PairingLink {
        PairingLink(outpostKey: f.outpost.publicKey.x963Representation, relay: "https://push.example.net:8443", environment: .sandbox,
                    pairingID: f.pairingID, credential: credential, expiresAt: now + 300)
    }

    @Test func aPairingLinkRoundTripsWithTheRelayPercentEncoded() throws {
        #expect(link.link.contains("relay=https%3A%2F%2Fpush.example.net%3A8443&"))
        #expect(link.link.hasPrefix("mailwake://pair?v=2&ok="))
        #expect(try PairingLink.parse(link.link) == link)
    }

    @Test(arguments: ["http://127.0.0.1:8080", "https://push.example.net:+443", "https://push.example.net:0443",
                      "https://push.example.net:0",
                      "https://push.example.net:65536", "https://-push.example.net", "https://push..example.net",
                      "https://user@push.example.net",
                      "https://push.example.net/", "https://[::1", "https://push_example.net"])
    func relaysMustBeCanonicalHTTPSOrigins(relay: String) {
        var l = link
        l.relay = relay
        #expect(protocolErrorCode { _ = try PairingLink.parse(l.link) } == "malformed", "\(relay)")
    }

    @Test(arguments: ["https://push.example.net", "https://192.168.1.10:8443", "https://[::1]:8443", "https://localhost:65535"])
    func ipLiteralsAndPortsAreAcceptedInOrigins(relay: String) throws {
        var l = link
        l.relay = relay
        #expect(try PairingLink.parse(l.link).relay == relay)
    }

    var secrets: PairingSecrets { get throws { try PairingSecrets(credential: credential) } }

    @Test func aConsentVerifiesAtTheOutpostWithItsMACAndAtTheRelayWithoutIt() throws {
        let consent = try PairingConsent.create(for: link, signingKey: f.deviceSigning, agreementKey: f.deviceAgreement.publicKey)
        let decoded = try PairingConsent.decode(consent.jsonBytes)
        let keys = try decoded.verify(outpostKey: link.outpostKey, secrets: try secrets, audience: link.relay, pairingID: f.pairingID,
                                      expectedExpiry: link.expiresAt, now: now)
        #expect(keys.agreement == f.deviceAgreement.publicKey)
        #expect(protocolErrorCode { try decoded.verifySignature(outpostKey: link.outpostKey, audience: link.relay, pairingID: f.pairingID,
                                                                now: now) } == nil)
    }

    @Test func theRelayTokenAndTheMACKeyAreDistinctAndNeitherIsTheCredential() throws {
        let s = try secrets
        #expect(s.relayToken.count == 32)
        #expect(s.macKey.rawBytes.count == 32)
        #expect(s.relayToken != s.macKey.rawBytes)
        #expect(s.relayToken != credential && s.macKey.rawBytes != credential)
        #expect(s.relayTokenHash == SHA256.hash(s.relayToken).bytes)
    }

    @Test func aConsentMACedWithTheRelayTokenIsRefusedAsForged() throws {
        // What a relay can do: it knows relay_token and everything in the consent, not mac_key.
        var forged = try PairingConsent.create(for: link, signingKey: f.deviceSigning, agreementKey: f.deviceAgreement.publicKey)
        forged.mac = HMACSHA256.authenticationCode(for: forged.consentInput(outpostKey: link.outpostKey, audience: link.relay),
                                                   key: try secrets.relayToken)
        #expect(protocolErrorCode { try forged.verify(outpostKey: link.outpostKey, secrets: try secrets, audience: link.relay,
                                                      pairingID: f.pairingID, now: now) } == "bad_mac")
        #expect(protocolErrorCode { try forged.verifySignature(outpostKey: link.outpostKey, audience: link.relay, pairingID: f.pairingID,
                                                               now: now) } == nil,
                "the relay's own checks cannot tell")
    }

    @Test(arguments: 0..<32)
    func aConsentWithAFlippedMACBitIsRefused(bit: Int) throws {
        var consent = try PairingConsent.create(for: link, signingKey: f.deviceSigning, agreementKey: f.deviceAgreement.publicKey)
        consent.mac[bit] ^= UInt8(1 << (bit % 8))
        #expect(protocolErrorCode { try consent.verify(outpostKey: link.outpostKey, secrets: try secrets, audience: link.relay,
                                                       pairingID: f.pairingID, now: now) } == "bad_mac")
    }

    @Test func aConsentForAnotherRelayIsRefusedByTheMACAndTheSignature() throws {
        let consent = try PairingConsent.create(for: link, signingKey: f.deviceSigning, agreementKey: f.deviceAgreement.publicKey)
        #expect(protocolErrorCode { try consent.verify(outpostKey: link.outpostKey, secrets: try secrets,
                                                       audience: "https://push.example.org", pairingID: f.pairingID,
                                                       now: now) } == "bad_mac")
        #expect(protocolErrorCode { try consent.verifySignature(outpostKey: link.outpostKey, audience: "https://push.example.org",
                                                                pairingID: f.pairingID, now: now) } == "bad_signature")
    }

    @Test func aRevision1ConsentAndLinkAreRefusedNamingTheUpgrade() throws {
        let consent = try PairingConsent.create(for: link, signingKey: f.deviceSigning, agreementKey: f.deviceAgreement.publicKey)
        let old = String(decoding: consent.jsonBytes, as: UTF8.self).replacingOccurrences(of: #""v":2,"#, with: #""v":1,"#)
            .replacingOccurrences(of: #","mac":"\#(Base64URL.encode(consent.mac))""#, with: "")
        do {
            _ = try PairingConsent.decode(Array(old.utf8))
            Issue.record("a revision 1 consent decoded")
        } catch {
            #expect(error.code == .upgradeRequired)
            #expect(error.message.contains("update the App"))
        }
        do {
            _ = try PairingLink.parse(link.link.replacingOccurrences(of: "pair?v=2&", with: "pair?v=1&"))
            Issue.record("a revision 1 link parsed")
        } catch {
            #expect(error.code == .upgradeRequired)
            #expect(error.message.contains("upgrade the outpost"))
        }
    }

    @Test func aConsentWithAnotherExpiryThanThePairingIsRefused() throws {
        let consent = try PairingConsent.create(for: link, signingKey: f.deviceSigning, agreementKey: f.deviceAgreement.publicKey)
        #expect(protocolErrorCode { try consent.verify(outpostKey: link.outpostKey, secrets: try secrets, audience: link.relay,
                                                       pairingID: f.pairingID,
                                                       expectedExpiry: link.expiresAt - 1, now: now) } == "expired")
    }

    @Test func aConsentSubmissionCarriesTheRelayTokenAndRoundTrips() throws {
        let submission = try ConsentSubmission.create(for: link, signingKey: f.deviceSigning, agreementKey: f.deviceAgreement.publicKey)
        #expect(submission.relayToken == (try secrets).relayToken)
        #expect(!String(decoding: submission.jsonBytes, as: UTF8.self).contains(Base64URL.encode(credential)),
                "the credential never goes to the relay")
        #expect(try StrictJSON.decode(ConsentSubmission.self, from: submission.jsonBytes) == submission)
    }

    var manageLink: ManagementLink {
        ManagementLink(outpostKey: f.outpost.publicKey.x963Representation, url: "https://[::1]:8443",
                       pin: [UInt8](repeating: 7, count: 32),
                       token: [UInt8](repeating: 9, count: 32), scopes: [.content, .push, .manage], expiresAt: now + 300,
                       push: .init(relay: "https://push.example.net", environment: .production, pairingID: f.pairingID,
                                   credential: credential))
    }

    @Test func aManagementLinkOfferingPushCarriesThePairingParameters() throws {
        let parsed = try ManagementLink.parse(manageLink.link)
        #expect(parsed == manageLink)
        #expect(parsed.pairingLink?.pairingID == f.pairingID)
        #expect(parsed.pairingLink?.expiresAt == now + 300)
    }

    @Test func aManagementConsentGrantsASubsetOfTheOffer() throws {
        let consent = try ManagementConsent.create(for: manageLink, scopes: [.manage], signingKey: f.deviceSigning,
                                                   agreementKey: f.deviceAgreement.publicKey)
        let decoded = try ManagementConsent.decode(consent.jsonBytes)
        #expect(decoded == consent)
        #expect(protocolErrorCode { try decoded.verify(outpostKey: manageLink.outpostKey, token: manageLink.token,
                                                       offeredScopes: manageLink.scopes, now: now) } == nil)
        #expect(protocolErrorCode { try decoded.verify(outpostKey: manageLink.outpostKey, token: manageLink.token,
                                                       offeredScopes: [.content], now: now) } == "scope_not_offered")
    }

    @Test func theScopeOrderDoesNotChangeTheSignature() throws {
        let a = try ManagementConsent.create(for: manageLink, scopes: [.push, .content], signingKey: f.deviceSigning,
                                             agreementKey: f.deviceAgreement.publicKey)
        var b = a
        b.scopes = [.content, .push]
        #expect(protocolErrorCode { try b.verify(outpostKey: manageLink.outpostKey, token: manageLink.token,
                                                 offeredScopes: manageLink.scopes, now: now) } == nil)
    }

    @Test func repeatedOrUnknownScopesAreMalformed() {
        let base = #"{"v":1,"device_id":"AAAAAAAAAAAAAAAAAAAAAA","device_signing_key":"x","device_agreement_key":"x","token":"x","# +
                   #""scopes":SCOPES,"exp":1,"sig":"x"}"#
        for scopes in [#"["manage","manage"]"#, #"["root"]"#, "[]", #"["manage,content"]"#] {
            #expect(protocolErrorCode { _ = try ManagementConsent.decode(Array(base.replacingOccurrences(of: "SCOPES",
                with: scopes).utf8)) } == "malformed")
        }
    }

    @Test func eventIDsAreLowerCaseUUIDv7WithTheirTime() throws {
        let id = try EventID.generate()
        #expect(EventID.isValid(id))
        #expect(id == id.lowercased())
        let millis = EventID.timestampMillis(of: id)!
        let nowMillis = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect(millis <= nowMillis && nowMillis - millis < 120_000)
        #expect(!EventID.isValid("01936f3e-7c1a-4d2b-9c4e-2f1a0b3c4d5e"), "version 4")
        #expect(!EventID.isValid("01936f3e-7c1a-7d2b-cc4e-2f1a0b3c4d5e"), "wrong variant")
    }
}
