import Foundation
import MailwakeCrypto
import MailwakeProtocol
import TestSupport
import Testing

/// Reproduces `Tests/Vectors/protocol-v1.json` byte for byte (signatures are
/// randomized ECDSA, so those are verified instead of compared).
@Suite("Protocol v1 test vectors")
struct VectorTests {
    typealias JSON = [String: Any]
    let vectors: JSON

    init() throws { vectors = try RepositoryPaths.json("Tests/Vectors/protocol-v1.json") }

    func list(_ key: String) -> [JSON] { vectors[key] as? [JSON] ?? [] }

    func b64(_ v: JSON, _ key: String) throws -> [UInt8] { try VectorOperations.b64(v, key) }

    func activity(_ v: JSON) -> ActivityInfo? {
        guard let a = v["activity"] as? JSON else { return nil }
        return ActivityInfo(id: a["id"] as! String, event: ActivityInfo.Event(rawValue: a["event"] as! String)!,
                            timestamp: (a["timestamp"] as! NSNumber).uint64Value, staleDate: (a["stale_date"] as! NSNumber).uint64Value,
                            dismissalDate: (a["dismissal_date"] as! NSNumber).uint64Value)
    }

    func context(_ v: JSON) -> EncryptionContext {
        EncryptionContext(aud: v["aud"] as! String, pairingID: v["pairing_id"] as! String, eventID: v["event_id"] as! String,
                          kind: EnvelopeKind(rawValue: v["kind"] as! String)!, iat: (v["iat"] as! NSNumber).uint64Value,
                          activity: activity(v))
    }

    @Test func theFileHoldsEverySection() {
        for key in ["fingerprint", "context", "seal", "consent", "manage_consent", "ref", "request", "links", "negative"] {
            #expect(!list(key).isEmpty, "section \(key)")
        }
    }

    @Test func fingerprintsAndIDsMatch() throws {
        for v in list("fingerprint") {
            let key = try b64(v, "public_key")
            #expect(KeyIdentity.fingerprint(of: key) == v["fingerprint"] as? String)
            #expect(KeyIdentity.id(of: key) == v["id"] as? String)
        }
    }

    @Test func contextBytesMatch() throws {
        for v in list("context") {
            #expect(context(v).bytes == (try b64(v, "context")), "\(v["name"] ?? "")")
        }
    }

    @Test func sealingReproducesEveryIntermediateValue() throws {
        for v in list("seal") {
            let name = v["name"] as? String ?? ""
            let outpost = try P256.Signing.PrivateKey(rawRepresentation: b64(v, "outpost_signing_private"))
            let device = try P256.KeyAgreement.PrivateKey(rawRepresentation: b64(v, "device_agreement_private"))
            let eph = try P256.KeyAgreement.PrivateKey(rawRepresentation: b64(v, "ephemeral_private"))
            #expect(outpost.publicKey.x963Representation == (try b64(v, "outpost_signing_public")))
            #expect(eph.publicKey.x963Representation == (try b64(v, "ephemeral_public")))
            let (envelope, trace) = try EnvelopeSealer(identity: outpost).seal(
                try b64(v, "plaintext"), to: device.publicKey, context: context(v), ephemeralKey: eph, salt: b64(v, "salt"),
                nonce: b64(v, "nonce"))
            #expect(trace.context == (try b64(v, "context")), "\(name): context")
            #expect(trace.sharedSecret == (try b64(v, "shared_secret")), "\(name): shared secret")
            #expect(trace.info == (try b64(v, "info")), "\(name): info")
            #expect(trace.key == (try b64(v, "key")), "\(name): key")
            #expect(envelope.ciphertext == (try b64(v, "ct")), "\(name): ct")
            #expect(trace.signingInput == (try b64(v, "signing_input")), "\(name): signing input")

            // The committed envelope (with its own randomized signature) opens on the device.
            let committed = try Envelope.decode(try VectorOperations.jsonBytes(v["envelope"] as Any))
            #expect(committed.ciphertext == envelope.ciphertext)
            let opener = EnvelopeOpener(agreementKey: device, outpostKey: outpost.publicKey, audience: envelope.context.aud,
                                        pairingID: envelope.context.pairingID)
            #expect(try opener.open(committed) == (try b64(v, "plaintext")), "\(name): plaintext")
        }
    }

    @Test func consentsReproduceTheirKeysInputAndMACAndVerify() throws {
        for v in list("consent") {
            let consent = try PairingConsent.decode(try VectorOperations.jsonBytes(v["consent"] as Any))
            let secrets = try PairingSecrets(credential: try b64(v, "credential"))
            #expect(secrets.relayToken == (try b64(v, "relay_token")))
            #expect(secrets.relayTokenHash == (try b64(v, "relay_token_hash")))
            #expect(secrets.macKey.rawBytes == (try b64(v, "mac_key")))
            let input = consent.consentInput(outpostKey: try b64(v, "outpost_public"), audience: v["aud"] as! String)
            #expect(input == (try b64(v, "consent_input")))
            #expect(secrets.mac(input) == consent.mac)
            #expect(consent.mac == (try b64(v, "mac")))
            #expect(consent.deviceID == v["device_id"] as? String)
            let submission = try StrictJSON.decode(ConsentSubmission.self, from: try VectorOperations.jsonBytes(v["submission"] as Any))
            #expect(submission.relayToken == secrets.relayToken)
            #expect(submission.consent == consent)
            try consent.verify(outpostKey: try b64(v, "outpost_public"), secrets: secrets, audience: v["aud"] as! String,
                               pairingID: v["pairing_id"] as! String,
                               expectedExpiry: (v["exp"] as! NSNumber).int64Value, now: (v["exp"] as! NSNumber).int64Value)
        }
    }

    @Test func managementConsentsReproduceTheirSigningInputAndVerify() throws {
        for v in list("manage_consent") {
            let body = try ManagementConsent.decode(try VectorOperations.jsonBytes(v["body"] as Any))
            let input = ManagementConsent.signingInput(outpostKey: try b64(v, "outpost_public"), deviceID: body.deviceID,
                                                       deviceSigningKey: body.deviceSigningKey,
                                                       deviceAgreementKey: body.deviceAgreementKey, token: try b64(v, "token"),
                                                       scopes: body.scopes,
                                                       expiresAt: body.expiresAt)
            #expect(input == (try b64(v, "signing_input")))
            try body.verify(outpostKey: try b64(v, "outpost_public"), token: try b64(v, "token"), offeredScopes: ManagementScope.allCases,
                            now: body.expiresAt)
        }
    }

    @Test func referencesReproduceTheirPayloadAndVerify() throws {
        for v in list("ref") {
            let key = try P256.Signing.PrivateKey(rawRepresentation: b64(v, "outpost_signing_private"))
            let p = v["payload"] as! JSON
            let ref = MessageReference(outpostID: p["o"] as! String, deviceID: p["d"] as! String, mailboxID: p["m"] as! String,
                                       folder: p["f"] as! String,
                                       uidValidity: (p["uv"] as! NSNumber).uint32Value, uid: (p["u"] as! NSNumber).uint32Value,
                                       iat: (p["iat"] as! NSNumber).uint64Value)
            #expect(ref.payloadBytes == (try b64(v, "ref_payload")))
            #expect(MessageReference.signingInput(payload: ref.payloadBytes) == (try b64(v, "signing_input")))
            #expect(try MessageReference.verify(v["ref"] as! String, outpostKey: key.publicKey, deviceID: ref.deviceID) == ref)
        }
    }

    @Test func requestSignaturesReproduceTheirInputAndHeader() throws {
        for v in list("request") {
            let key = try P256.Signing.PrivateKey(rawRepresentation: b64(v, "signing_private"))
            let header = try SignatureHeader.parse(v["header"] as! String)
            let ts = (v["ts"] as! NSNumber).int64Value
            let input = RequestSigningInput.build(method: v["method"] as! String, origin: v["origin"] as! String,
                                                  pathAndQuery: v["path"] as! String,
                                                  timestamp: ts, nonce: try b64(v, "nonce"), bodyDigest: SHA256.hash(try b64(v, "body")))
            #expect(input == (try b64(v, "signing_input")))
            #expect(header.keyID == v["keyid"] as? String)
            #expect(header.value == v["header"] as? String, "header format is canonical")
            try RequestVerifier.verify(header, method: v["method"] as! String, origin: v["origin"] as! String,
                                       pathAndQuery: v["path"] as! String,
                                       body: try b64(v, "body"), publicKey: key.publicKey, now: ts)
        }
    }

    @Test func linksBuildAndParseBothWays() throws {
        for v in list("links") {
            let link = v["link"] as! String
            let params = v["params"] as! [String: String]
            if v["kind"] as? String == "pair" {
                let parsed = try PairingLink.parse(link)
                #expect(parsed.link == link)
                #expect(Base64URL.encode(parsed.outpostKey) == params["ok"])
                #expect(parsed.relay == params["relay"])
                #expect(parsed.pairingID == params["pid"])
                #expect(String(parsed.expiresAt) == params["exp"])
            } else {
                let parsed = try ManagementLink.parse(link)
                #expect(parsed.link == link)
                #expect(parsed.url == params["url"])
                #expect(parsed.scopes.map(\.rawValue).joined(separator: ",") == params["scope"])
                #expect((parsed.push != nil) == (params["relay"] != nil))
            }
        }
    }

    @Test func everyNegativeVectorFailsForItsStatedReason() throws {
        let negatives = list("negative")
        #expect(negatives.count > 50)
        for v in negatives {
            let name = v["name"] as? String ?? "?"
            let code = try VectorOperations.run(v["operation"] as! String, v["input"] as! JSON)
            #expect(code == v["error"] as? String, "\(name): got \(code ?? "success")")
        }
    }
}
