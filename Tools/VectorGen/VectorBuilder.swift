import Foundation
import MailwakeCrypto
import MailwakeProtocol

/// Builds `Tests/Vectors/protocol-v1.json`.
struct VectorBuilder {
    typealias JSON = [String: Any]

    let outpost = VectorKeys.signing("outpost")
    let otherOutpost = VectorKeys.signing("other-outpost")
    let deviceSigning = VectorKeys.signing("device-signing")
    let deviceAgreement = VectorKeys.agreement("device-agreement")
    let aud = "https://push.example.net"
    let pairingID = Base64URL.encode(VectorKeys.bytes("pairing", count: 16))
    let eventID = "01936f3e-7c1a-7d2b-9c4e-2f1a0b3c4d5e"
    let iat: UInt64 = 1_764_400_000

    func b64(_ b: [UInt8]) -> String { Base64URL.encode(b) }

    func object(_ bytes: [UInt8]) -> Any { try! JSONSerialization.jsonObject(with: Data(bytes)) }

    func activityJSON(_ a: ActivityInfo?) -> Any {
        guard let a else { return NSNull() }
        return ["id": a.id, "event": a.event.rawValue, "timestamp": a.timestamp, "stale_date": a.staleDate,
                "dismissal_date": a.dismissalDate] as JSON
    }

    // MARK: fingerprint and context

    func fingerprints() -> [JSON] {
        ["outpost", "device-signing", "other-outpost"].map { label in
            let pub = VectorKeys.signing(label).publicKey.x963Representation
            return ["name": label, "public_key": b64(pub), "fingerprint": KeyIdentity.fingerprint(of: pub), "id": KeyIdentity.id(of: pub)]
        }
    }

    var notificationContext: EncryptionContext {
        EncryptionContext(aud: aud, pairingID: pairingID, eventID: eventID, kind: .notification, iat: iat)
    }

    var activityContext: EncryptionContext {
        EncryptionContext(aud: aud, pairingID: pairingID, eventID: "01936f3e-8000-7abc-8def-0123456789ab", kind: .liveActivity,
                          iat: iat + 5,
                          activity: ActivityInfo(id: "code-activity-1", event: .start, timestamp: iat + 5, staleDate: iat + 600,
                                                 dismissalDate: 0))
    }

    func contexts() -> [JSON] {
        [("notification", notificationContext), ("live-activity", activityContext)].map { name, c in
            ["name": name, "alg": c.alg, "aud": c.aud, "pairing_id": c.pairingID, "event_id": c.eventID, "kind": c.kind.rawValue,
             "iat": c.iat, "activity": activityJSON(c.activity), "context": b64(c.bytes)]
        }
    }

    // MARK: seal

    var samplePlaintext: [UInt8] {
        NotificationContent(mailbox: "Work", folder: "INBOX", from: .init(name: "Alice Example", address: "alice@example.com"),
                            subject: "Your code: 482913 — Quarterly report 季度报告", receivedAt: iat - 3, code: "482913").jsonBytes
    }

    func sealVector(name: String, context: EncryptionContext, plaintext: [UInt8], label: String) -> (JSON, Envelope) {
        let eph = VectorKeys.agreement("ephemeral-\(label)")
        let salt = VectorKeys.bytes("salt-\(label)", count: 32), nonce = VectorKeys.bytes("nonce-\(label)", count: 12)
        let (envelope, trace) = try! EnvelopeSealer(identity: outpost).seal(plaintext, to: deviceAgreement.publicKey, context: context,
                                                                             ephemeralKey: eph, salt: salt, nonce: nonce)
        let v: JSON = [
            "name": name,
            "outpost_signing_private": b64(outpost.rawRepresentation), "outpost_signing_public": b64(outpost.publicKey.x963Representation),
            "device_agreement_private": b64(deviceAgreement.rawRepresentation),
            "device_agreement_public": b64(deviceAgreement.publicKey.x963Representation),
            "ephemeral_private": b64(eph.rawRepresentation), "ephemeral_public": b64(eph.publicKey.x963Representation),
            "salt": b64(salt), "nonce": b64(nonce),
            "aud": context.aud, "pairing_id": context.pairingID, "event_id": context.eventID, "kind": context.kind.rawValue,
            "iat": context.iat, "activity": activityJSON(context.activity),
            "plaintext": b64(plaintext),
            "context": b64(trace.context), "shared_secret": b64(trace.sharedSecret), "info": b64(trace.info), "key": b64(trace.key),
            "ct": b64(envelope.ciphertext), "signing_input": b64(trace.signingInput),
            "envelope": object(envelope.jsonBytes),
        ]
        return (v, envelope)
    }

    func seals() -> [JSON] {
        [
            sealVector(name: "notification", context: notificationContext, plaintext: samplePlaintext, label: "n1").0,
            sealVector(name: "live-activity start", context: activityContext, plaintext: samplePlaintext, label: "la1").0,
            sealVector(name: "empty plaintext", context: EncryptionContext(aud: "https://relay.example:8443", pairingID: pairingID,
                                                                          eventID: "01936f3e-9000-7000-8000-000000000001",
                                                                          kind: .notification, iat: 0),
                       plaintext: [], label: "e1").0,
        ]
    }

    // MARK: consent, management consent, ref, request

    var credential: [UInt8] { VectorKeys.bytes("credential", count: 32) }
    var consentExp: Int64 { Int64(iat) + 300 }

    func consent() -> PairingConsent {
        let link = PairingLink(outpostKey: outpost.publicKey.x963Representation, relay: aud, environment: .production,
                               pairingID: pairingID, credential: credential, expiresAt: consentExp)
        return try! PairingConsent.create(for: link, signingKey: deviceSigning, agreementKey: deviceAgreement.publicKey)
    }

    func consents() -> [JSON] {
        let c = consent()
        let secrets = try! PairingSecrets(credential: credential)
        let input = c.consentInput(outpostKey: outpost.publicKey.x963Representation, audience: aud)
        let submission = ConsentSubmission(relayToken: secrets.relayToken, consent: c)
        return [[
            "name": "pairing consent",
            "outpost_public": b64(outpost.publicKey.x963Representation),
            "device_signing_private": b64(deviceSigning.rawRepresentation),
            "device_signing_public": b64(deviceSigning.publicKey.x963Representation),
            "device_agreement_public": b64(deviceAgreement.publicKey.x963Representation),
            "pairing_id": pairingID, "aud": aud, "credential": b64(credential), "exp": consentExp, "device_id": c.deviceID,
            "relay_token": b64(secrets.relayToken), "relay_token_hash": b64(secrets.relayTokenHash),
            "mac_key": b64(secrets.macKey.rawBytes),
            "consent_input": b64(input), "mac": b64(c.mac), "consent": object(c.jsonBytes), "submission": object(submission.jsonBytes),
        ]]
    }

    var token: [UInt8] { VectorKeys.bytes("token", count: 32) }
    var pin: [UInt8] { VectorKeys.bytes("pin", count: 32) }

    func manageLink(scopes: [ManagementScope]) -> ManagementLink {
        let push = scopes.contains(.push) ? ManagementLink.PushOffer(relay: aud, environment: .sandbox, pairingID: pairingID,
                                                                     credential: credential) : nil
        return ManagementLink(outpostKey: outpost.publicKey.x963Representation, url: "https://outpost.home.example:8443", pin: pin,
                              token: token, scopes: scopes, expiresAt: consentExp, push: push)
    }

    func manageConsent(requested: [ManagementScope]) -> ManagementConsent {
        try! ManagementConsent.create(for: manageLink(scopes: [.push, .manage, .content]), scopes: requested, signingKey: deviceSigning,
                                      agreementKey: deviceAgreement.publicKey)
    }

    func manageConsents() -> [JSON] {
        [[ManagementScope.push, .manage, .content], [.content]].map { requested in
            let c = manageConsent(requested: requested)
            let input = ManagementConsent.signingInput(outpostKey: outpost.publicKey.x963Representation, deviceID: c.deviceID,
                                                       deviceSigningKey: c.deviceSigningKey, deviceAgreementKey: c.deviceAgreementKey,
                                                       token: token, scopes: requested, expiresAt: c.expiresAt)
            return [
                "name": "manage consent " + requested.map(\.rawValue).joined(separator: ","),
                "outpost_public": b64(outpost.publicKey.x963Representation),
                "device_signing_private": b64(deviceSigning.rawRepresentation),
                "device_signing_public": b64(deviceSigning.publicKey.x963Representation),
                "device_agreement_public": b64(deviceAgreement.publicKey.x963Representation),
                "token": b64(token), "scopes": requested.map(\.rawValue), "exp": consentExp, "device_id": c.deviceID,
                "signing_input": b64(input), "body": object(c.jsonBytes),
            ] as JSON
        }
    }

    var deviceID: String { KeyIdentity.id(of: deviceSigning.publicKey) }

    func reference(folder: String = "INBOX") -> MessageReference {
        MessageReference(outpostID: KeyIdentity.id(of: outpost.publicKey), deviceID: deviceID, mailboxID: "mbx_7f3a",
                         folder: folder, uidValidity: 1_700_000_001, uid: 4242, iat: iat)
    }

    func refs() -> [JSON] {
        [reference(), reference(folder: "Archives/2026 \"Q4\" 归档")].enumerated().map { i, r in
            let ref = try! r.sign(with: outpost)
            return [
                "name": i == 0 ? "inbox reference" : "folder with quotes and CJK",
                "outpost_signing_private": b64(outpost.rawRepresentation),
                "outpost_signing_public": b64(outpost.publicKey.x963Representation),
                "payload": object(r.payloadBytes), "ref_payload": b64(r.payloadBytes),
                "signing_input": b64(MessageReference.signingInput(payload: r.payloadBytes)), "ref": ref,
            ] as JSON
        }
    }

    struct RequestCase {
        var name: String, signer: P256.Signing.PrivateKey, method: String, origin: String, path: String, body: [UInt8], ts: Int64,
            nonceLabel: String
    }

    var requestCases: [RequestCase] {
        [
            RequestCase(name: "outpost registers a pairing", signer: outpost, method: "POST", origin: aud, path: "/v1/pairings",
                        body: Array(#"{"pairing_id":"x"}"#.utf8), ts: Int64(iat), nonceLabel: "r1"),
            RequestCase(name: "device long-poll with query, empty body", signer: deviceSigning, method: "GET",
                        origin: "https://accounts.example.net",
                        path: "/v1/pairings/\(pairingID)/consent?wait=30", body: [], ts: Int64(iat) + 1, nonceLabel: "r2"),
        ]
    }

    func signHeader(_ c: RequestCase) -> SignatureHeader {
        try! RequestSigner(key: c.signer).sign(method: c.method, origin: c.origin, pathAndQuery: c.path, body: c.body, timestamp: c.ts,
                                               nonce: VectorKeys.bytes("nonce-\(c.nonceLabel)", count: 16))
    }

    func requests() -> [JSON] {
        requestCases.map { c in
            let header = signHeader(c)
            let input = RequestSigningInput.build(method: c.method, origin: c.origin, pathAndQuery: c.path, timestamp: c.ts,
                                                  nonce: header.nonce, bodyDigest: SHA256.hash(c.body))
            return [
                "name": c.name, "signing_private": b64(c.signer.rawRepresentation),
                "signing_public": b64(c.signer.publicKey.x963Representation),
                "keyid": header.keyID, "method": c.method, "origin": c.origin, "path": c.path, "ts": c.ts, "nonce": b64(header.nonce),
                "body": b64(c.body), "signing_input": b64(input), "header": header.value,
            ] as JSON
        }
    }

    // MARK: links

    var pairingLink: PairingLink {
        PairingLink(outpostKey: outpost.publicKey.x963Representation, relay: aud, environment: .production,
                    pairingID: pairingID, credential: credential, expiresAt: consentExp)
    }

    func links() -> [JSON] {
        let p = pairingLink
        var out: [JSON] = [[
            "name": "push pairing", "kind": "pair", "link": p.link,
            "params": ["v": "2", "ok": b64(p.outpostKey), "relay": p.relay, "env": p.environment.rawValue, "pid": p.pairingID,
                       "cred": b64(p.credential), "exp": String(p.expiresAt)],
        ]]
        for scopes in [[ManagementScope.manage, .content], [.manage, .content, .push]] {
            let m = manageLink(scopes: scopes)
            var params: [String: String] = ["v": "1", "ok": b64(m.outpostKey), "url": m.url, "pin": b64(m.pin), "tok": b64(m.token),
                                            "scope": scopes.map(\.rawValue).joined(separator: ","), "exp": String(m.expiresAt)]
            if let push = m.push {
                params["relay"] = push.relay
                params["env"] = push.environment.rawValue
                params["pid"] = push.pairingID
                params["cred"] = b64(push.credential)
            }
            out.append(["name": "management " + scopes.map(\.rawValue).joined(separator: ","), "kind": "manage", "params": params,
                        "link": m.link])
        }
        return out
    }

    func build() -> JSON {
        [
            "protocol": "mailwake/v1",
            "generator": "mailwake-vectors (Swift reference implementation); see Tests/Vectors/README.md",
            "fingerprint": fingerprints(),
            "context": contexts(),
            "seal": seals(),
            "consent": consents(),
            "manage_consent": manageConsents(),
            "ref": refs(),
            "request": requests(),
            "links": links(),
            "negative": negatives(),
        ]
    }
}
