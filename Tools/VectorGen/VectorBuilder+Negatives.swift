import Foundation
import MailwakeCrypto
import MailwakeProtocol

extension VectorBuilder {
    /// Re-signs a modified envelope with `key` (the outpost itself signing bad content).
    func resigned(_ e: Envelope, with key: P256.Signing.PrivateKey? = nil) -> Envelope {
        var copy = e
        copy.signature = try! (key ?? outpost).signature(for: e.signingInput).rawRepresentation
        return copy
    }

    func openCase(_ name: String, _ error: String, envelope: Envelope? = nil, envelopeJSON: String? = nil,
                  aud: String? = nil, pairing: String? = nil, seen: [String]? = nil) -> JSON {
        var input: JSON = [
            "device_agreement_private": b64(deviceAgreement.rawRepresentation),
            "outpost_public": b64(outpost.publicKey.x963Representation),
            "aud": aud ?? self.aud, "pairing_id": pairing ?? pairingID,
        ]
        if let envelope { input["envelope"] = object(envelope.jsonBytes) }
        if let envelopeJSON { input["envelope_json"] = envelopeJSON }
        if let seen { input["seen_event_ids"] = seen }
        return ["name": name, "operation": "open", "input": input, "error": error]
    }

    /// The base envelope JSON text with `edit` applied to its dictionary form.
    func editedJSON(_ e: Envelope, _ edit: (inout [String: Any]) -> Void) -> String {
        var dict = object(e.jsonBytes) as! [String: Any]
        edit(&dict)
        return String(decoding: try! JSONSerialization.data(withJSONObject: dict, options: [.sortedKeys]), as: UTF8.self)
    }

    func negatives() -> [JSON] {
        let (_, base) = sealVector(name: "base", context: notificationContext, plaintext: samplePlaintext, label: "neg")
        var out: [JSON] = []

        // Tampering that the signature catches.
        for (field, bits) in [("ct", 0), ("tag", 1), ("epk", 2), ("salt", 3), ("nonce", 4), ("sig", 5)] {
            var e = base
            switch field {
            case "ct": e.ciphertext = e.ciphertext.flipping(bits + 3)
            case "tag": e.ciphertext = e.ciphertext.flipping(e.ciphertext.count * 8 - 1)
            case "epk": e.ephemeralPublicKey = e.ephemeralPublicKey.flipping(100)
            case "salt": e.salt = e.salt.flipping(17)
            case "nonce": e.nonce = e.nonce.flipping(90)
            default: e.signature = e.signature.flipping(200)
            }
            out.append(openCase("bit flip in \(field)", "bad_signature", envelope: e))
        }
        for (name, edit) in [("aud", { (c: inout EncryptionContext) in c.aud = "https://push.example.org" }),
                             ("pairing_id", { $0.pairingID = Base64URL.encode(VectorKeys.bytes("other-pairing", count: 16)) }),
                             ("event_id", { $0.eventID = "01936f3e-7c1a-7d2b-9c4e-2f1a0b3c4d5f" }),
                             ("iat", { $0.iat += 1 })] as [(String, (inout EncryptionContext) -> Void)] {
            var e = base
            edit(&e.context)
            out.append(openCase("changed \(name) without re-signing", "bad_signature", envelope: e))
        }
        do {
            var e = base
            e.signature = try! otherOutpost.signature(for: e.signingInput).rawRepresentation
            out.append(openCase("signed by another outpost key", "bad_signature", envelope: e))
        }

        // Validly signed by the outpost, but wrong for this device.
        do {
            var e = base
            e.context.aud = "https://push.example.org"
            out.append(openCase("signed for another audience", "wrong_audience", envelope: resigned(e)))
            e = base
            e.context.pairingID = Base64URL.encode(VectorKeys.bytes("other-pairing", count: 16))
            out.append(openCase("signed for another pairing", "wrong_pairing", envelope: resigned(e)))
        }
        for (name, edit) in [("ct", { (e: inout Envelope) in e.ciphertext = e.ciphertext.flipping(9) }),
                             ("tag", { $0.ciphertext = $0.ciphertext.flipping($0.ciphertext.count * 8 - 8) }),
                             ("salt", { $0.salt = $0.salt.flipping(0) }),
                             ("nonce", { $0.nonce = $0.nonce.flipping(95) }),
                             ("epk (another valid point)",
                              { $0.ephemeralPublicKey = VectorKeys.agreement("stranger").publicKey.x963Representation }),
                             ("iat (AAD)", { $0.context.iat += 60 }),
                             ("event_id (AAD)", { $0.context.eventID = "01936f3e-7c1a-7d2b-9c4e-2f1a0b3c4d5f" })] as [(String,
                                 (inout Envelope) -> Void)] {
            var e = base
            edit(&e)
            out.append(openCase("re-signed after changing \(name)", "decryption_failed", envelope: resigned(e)))
        }
        do {
            var e = base
            var bad = e.ephemeralPublicKey
            bad[64] ^= 0x01
            e.ephemeralPublicKey = bad
            out.append(openCase("re-signed with an epk not on the curve", "invalid_key", envelope: resigned(e)))
        }
        out.append(openCase("event id already accepted", "replayed", envelope: base, seen: [eventID]))

        // Shape.
        out.append(openCase("unknown field", "malformed", envelopeJSON: editedJSON(base) { $0["extra"] = 1 }))
        out.append(openCase("missing sig", "malformed", envelopeJSON: editedJSON(base) { $0["sig"] = nil }))
        out.append(openCase("v is 2", "malformed", envelopeJSON: editedJSON(base) { $0["v"] = 2 }))
        out.append(openCase("unknown alg", "malformed", envelopeJSON: editedJSON(base) { $0["alg"] = "P256-HKDF-SHA256-A128GCM" }))
        out.append(openCase("unknown kind", "malformed", envelopeJSON: editedJSON(base) { $0["kind"] = "silent" }))
        out.append(openCase("live-activity without activity", "malformed",
                            envelopeJSON: editedJSON(base) { $0["kind"] = "live-activity" }))
        out.append(openCase("notification with activity", "malformed", envelopeJSON: editedJSON(base) {
            $0["activity"] = ["id": "a", "event": "start", "timestamp": 1, "stale_date": 0, "dismissal_date": 0]
        }))
        out.append(openCase("sig of 63 bytes", "malformed",
                            envelopeJSON: editedJSON(base) { $0["sig"] = Base64URL.encode(base.signature.dropLast()) }))
        out.append(openCase("epk of 33 bytes", "malformed",
                            envelopeJSON: editedJSON(base) { $0["epk"] = Base64URL.encode(base.ephemeralPublicKey.prefix(33)) }))
        out.append(openCase("salt of 16 bytes", "malformed",
                            envelopeJSON: editedJSON(base) { $0["salt"] = Base64URL.encode(base.salt.prefix(16)) }))
        out.append(openCase("nonce of 16 bytes", "malformed",
                            envelopeJSON: editedJSON(base) { $0["nonce"] = Base64URL.encode(base.salt.prefix(16)) }))
        out.append(openCase("ct shorter than a tag", "malformed",
                            envelopeJSON: editedJSON(base) { $0["ct"] = Base64URL.encode(base.ciphertext.prefix(15)) }))
        out.append(openCase("padded base64", "malformed",
                            envelopeJSON: editedJSON(base) { $0["salt"] = Base64URL.encode(base.salt) + "=" }))
        out.append(openCase("standard base64 alphabet", "malformed", envelopeJSON: editedJSON(base) {
            $0["sig"] = "+" + String(Base64URL.encode(base.signature).dropFirst())
        }))
        out.append(openCase("non-canonical trailing bits", "malformed", envelopeJSON: editedJSON(base) {
            // 32 bytes take 43 characters; the last one carries 2 zero padding bits. Set one.
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            var s = Array(Base64URL.encode(base.salt))
            s[s.count - 1] = alphabet[alphabet.firstIndex(of: s[s.count - 1])! | 1]
            $0["salt"] = String(s)
        }))
        out.append(openCase("iat is a fraction", "malformed", envelopeJSON: editedJSON(base) { $0["iat"] = 1.5 }))
        out.append(openCase("iat is negative", "malformed", envelopeJSON: editedJSON(base) { $0["iat"] = -1 }))
        out.append(openCase("event_id not a UUIDv7", "malformed",
                            envelopeJSON: editedJSON(base) { $0["event_id"] = "01936f3e-7c1a-4d2b-9c4e-2f1a0b3c4d5e" }))
        out.append(openCase("event_id upper case", "malformed",
                            envelopeJSON: editedJSON(base) { $0["event_id"] = "01936F3E-7C1A-7D2B-9C4E-2F1A0B3C4D5E" }))
        out.append(openCase("pairing_id of 15 bytes", "malformed",
                            envelopeJSON: editedJSON(base) { $0["pairing_id"] = Base64URL.encode(VectorKeys.bytes("p15", count: 15)) }))
        do {
            let text = String(decoding: base.jsonBytes, as: UTF8.self)
            let dup = text.replacingOccurrences(of: "{\"v\":1,", with: "{\"v\":1,\"aud\":\"https://push.example.org\",")
            out.append(openCase("duplicate key", "malformed", envelopeJSON: dup))
            out.append(openCase("trailing garbage", "malformed", envelopeJSON: text + "x"))
        }

        out += verifyEnvelopeCases(base)
        out += consentCases()
        out += manageConsentCases()
        out += refCases()
        out += requestCasesNegative()
        out += linkCases()
        return out
    }

    func verifyEnvelopeCases(_ base: Envelope) -> [JSON] {
        func c(_ name: String, _ error: String, _ e: Envelope, key: P256.Signing.PrivateKey? = nil) -> JSON {
            ["name": name, "operation": "verify_envelope", "error": error,
             "input": ["envelope": object(e.jsonBytes), "outpost_public": b64((key ?? outpost).publicKey.x963Representation)] as JSON]
        }
        var flipped = base
        flipped.ciphertext = flipped.ciphertext.flipping(33)
        return [c("relay: bit flip in ct", "bad_signature", flipped),
                c("relay: pinned key of another outpost", "bad_signature", base, key: otherOutpost)]
    }

    func consentCases() -> [JSON] {
        let good = consent()
        let secrets = try! PairingSecrets(credential: credential)
        let outpostKey = outpost.publicKey.x963Representation
        func c(_ name: String, _ error: String, _ consent: PairingConsent, credential: [UInt8]? = nil, pairing: String? = nil,
               aud: String? = nil,
               now: Int64? = nil, outpostKey: [UInt8]? = nil) -> JSON {
            c(name, error, json: object(consent.jsonBytes), credential: credential, pairing: pairing, aud: aud, now: now,
              outpostKey: outpostKey)
        }
        func c(_ name: String, _ error: String, json: Any, credential: [UInt8]? = nil, pairing: String? = nil, aud: String? = nil,
               now: Int64? = nil, outpostKey: [UInt8]? = nil) -> JSON {
            ["name": name, "operation": "verify_consent", "error": error,
             "input": ["consent": json, "outpost_public": b64(outpostKey ?? outpost.publicKey.x963Representation),
                       "credential": b64(credential ?? self.credential), "pairing_id": pairing ?? pairingID, "aud": aud ?? self.aud,
                       "now": now ?? Int64(iat)] as JSON]
        }
        /// Re-signs and re-MACs an edited consent as a device holding the credential would, so a later check is what fails.
        func resealed(_ edit: (inout PairingConsent) -> Void) -> PairingConsent {
            var e = good
            edit(&e)
            let input = e.consentInput(outpostKey: outpostKey, audience: aud)
            e.mac = secrets.mac(input)
            if let sig = try? deviceSigning.signature(for: input) { e.signature = sig.rawRepresentation }
            return e
        }
        var flippedSig = good
        flippedSig.signature = flippedSig.signature.flipping(77)
        var flippedMAC = good
        flippedMAC.mac = flippedMAC.mac.flipping(5)
        // The malicious relay: it holds relay_token (and SHA-256 of it), never mac_key.
        var relayMade = good
        relayMade.mac = HMACSHA256.authenticationCode(for: good.consentInput(outpostKey: outpostKey, audience: aud),
                                                      key: secrets.relayToken)
        var laterExp = good
        laterExp.expiresAt += 3600
        let otherDevice = resealed { $0.deviceID = KeyIdentity.id(of: otherOutpost.publicKey) }
        let badPoint = resealed { $0.deviceAgreementKey[64] ^= 1 }
        let otherAudience = "https://push.example.org"
        let forOtherAudience = try! PairingConsent.create(
            for: PairingLink(outpostKey: outpostKey, relay: otherAudience, environment: .production, pairingID: pairingID,
                             credential: credential, expiresAt: consentExp),
            signingKey: deviceSigning, agreementKey: deviceAgreement.publicKey)
        var revision1 = (object(good.jsonBytes) as! [String: Any])
        revision1["v"] = 1
        revision1["mac"] = nil
        return [
            c("consent: right relay token, wrong MAC key (a relay's own consent)", "bad_mac", relayMade),
            c("consent: bit flip in mac", "bad_mac", flippedMAC),
            c("consent: for another aud", "bad_mac", forOtherAudience),
            c("consent: checked against another aud", "bad_mac", good, aud: otherAudience),
            c("consent: another credential", "bad_mac", good, credential: VectorKeys.bytes("other-credential", count: 32)),
            c("consent: for another outpost", "bad_mac", good, outpostKey: otherOutpost.publicKey.x963Representation),
            c("consent: exp extended by the sender", "bad_mac", laterExp),
            c("consent: bit flip in sig", "bad_signature", flippedSig),
            c("consent: for another pairing", "wrong_pairing", good,
              pairing: Base64URL.encode(VectorKeys.bytes("other-pairing", count: 16))),
            c("consent: expired", "expired", good, now: consentExp + 1),
            c("consent: device_id of another key", "wrong_key", otherDevice),
            c("consent: agreement key not on the curve", "invalid_key", badPoint),
            c("consent: revision 1", "upgrade_required", json: revision1),
        ]
    }

    func manageConsentCases() -> [JSON] {
        let offered = ["manage", "content", "push"]
        func c(_ name: String, _ error: String, _ body: ManagementConsent, token: [UInt8]? = nil, offered: [String] = offered,
               now: Int64? = nil) -> JSON {
            ["name": name, "operation": "verify_manage_consent", "error": error,
             "input": ["body": object(body.jsonBytes), "outpost_public": b64(outpost.publicKey.x963Representation),
                       "token": b64(token ?? self.token), "offered_scopes": offered, "now": now ?? Int64(iat)] as JSON]
        }
        let good = manageConsent(requested: [.manage, .content])
        var flipped = good
        flipped.signature = flipped.signature.flipping(3)
        var widened = good
        widened.scopes = [.manage, .content, .push]
        return [
            c("manage: bit flip in sig", "bad_signature", flipped),
            c("manage: scopes widened after signing", "bad_signature", widened),
            c("manage: token of another invitation", "bad_credential", good, token: VectorKeys.bytes("other-token", count: 32)),
            c("manage: scope not offered", "scope_not_offered", good, offered: ["content"]),
            c("manage: expired", "expired", good, now: consentExp + 1),
        ]
    }

    func refCases() -> [JSON] {
        func c(_ name: String, _ error: String, _ ref: String, device: String? = nil, key: [UInt8]? = nil) -> JSON {
            ["name": name, "operation": "verify_ref", "error": error,
             "input": ["ref": ref, "outpost_public": b64(key ?? outpost.publicKey.x963Representation),
                       "device_id": device ?? deviceID] as JSON]
        }
        let good = try! reference().sign(with: outpost)
        let parts = good.split(separator: ".").map(String.init)
        let sig = Base64URL.decode(parts[1])!
        let flippedSig = parts[0] + "." + Base64URL.encode(sig.flipping(10))
        var payload = Base64URL.decode(parts[0])!
        payload[payload.count - 3] ^= 0x01  // a digit of iat
        let flippedPayload = Base64URL.encode(payload) + "." + parts[1]
        // A payload with an unknown field, validly signed.
        let extra = Array(#"{"v":1,"o":"x","x":1}"#.utf8)
        let extraSig = try! outpost.signature(for: MessageReference.signingInput(payload: extra)).rawRepresentation
        return [
            c("ref: bit flip in sig", "bad_signature", flippedSig),
            c("ref: bit flip in payload", "bad_signature", flippedPayload),
            c("ref: verified with another outpost key", "bad_signature", good, key: otherOutpost.publicKey.x963Representation),
            c("ref: presented by another device", "wrong_key", good, device: KeyIdentity.id(of: otherOutpost.publicKey)),
            c("ref: no separator", "malformed", parts[0] + parts[1]),
            c("ref: signed payload with unknown field", "malformed", Base64URL.encode(extra) + "." + Base64URL.encode(extraSig)),
        ]
    }

    func requestCasesNegative() -> [JSON] {
        let rc = requestCases[0]
        let header = signHeader(rc)
        func c(_ name: String, _ error: String, header h: String? = nil, method: String? = nil, origin: String? = nil, path: String? = nil,
               body: [UInt8]? = nil, key: [UInt8]? = nil, now: Int64? = nil, seen: [String]? = nil) -> JSON {
            var input: JSON = ["header": h ?? header.value, "method": method ?? rc.method, "origin": origin ?? rc.origin,
                               "path": path ?? rc.path,
                               "body": b64(body ?? rc.body), "public_key": b64(key ?? rc.signer.publicKey.x963Representation),
                               "now": now ?? rc.ts]
            if let seen { input["seen_nonces"] = seen }
            return ["name": name, "operation": "verify_request", "error": error, "input": input]
        }
        var flipped = header
        flipped.signature = flipped.signature.flipping(100)
        return [
            c("request: bit flip in sig", "bad_signature", header: flipped.value),
            c("request: other method", "bad_signature", method: "PUT"),
            c("request: other path", "bad_signature", path: "/v1/pairings?x=1"),
            c("request: other origin", "bad_signature", origin: "https://push.example.org"),
            c("request: body changed", "bad_signature", body: rc.body + [0x20]),
            c("request: 301 s in the past", "clock_skew", now: rc.ts + 301),
            c("request: 301 s in the future", "clock_skew", now: rc.ts - 301),
            c("request: nonce replayed", "replayed", seen: [b64(header.nonce)]),
            c("request: keyid of another key", "wrong_key", key: otherOutpost.publicKey.x963Representation),
            c("request: missing sig parameter", "malformed",
              header: "keyid=\"\(header.keyID)\", ts=\"\(header.timestamp)\", nonce=\"\(b64(header.nonce))\""),
            c("request: unquoted ts", "malformed",
              header: header.value.replacingOccurrences(of: "ts=\"\(header.timestamp)\"", with: "ts=\(header.timestamp)")),
            c("request: nonce of 8 bytes", "malformed",
              header: header.value.replacingOccurrences(of: b64(header.nonce), with: b64(Array(header.nonce.prefix(8))))),
        ]
    }

    func linkCases() -> [JSON] {
        let good = pairingLink.link
        func c(_ name: String, _ error: String, _ link: String) -> JSON {
            ["name": name, "operation": "parse_link", "error": error, "input": ["link": link] as JSON]
        }
        var badPoint = pairingLink
        badPoint.outpostKey[64] ^= 1
        var httpRelay = pairingLink
        httpRelay.relay = "http://push.example.net"
        var pathRelay = pairingLink
        pathRelay.relay = "https://push.example.net/v1"
        let manage = manageLink(scopes: [.manage]).link
        return [
            c("link: v not first", "malformed",
              good.replacingOccurrences(of: "pair?v=2&ok=", with: "pair?ok=").replacingOccurrences(of: "&relay=", with: "&v=2&relay=")),
            c("link: v is 1 (revision 1)", "upgrade_required", good.replacingOccurrences(of: "pair?v=2&", with: "pair?v=1&")),
            c("link: v is 3", "malformed", good.replacingOccurrences(of: "pair?v=2&", with: "pair?v=3&")),
            c("manage link: v is 2", "malformed", manage.replacingOccurrences(of: "manage?v=1&", with: "manage?v=2&")),
            c("link: missing cred", "malformed", good.replacingOccurrences(of: "&cred=\(b64(credential))", with: "")),
            c("link: repeated pid", "malformed", good + "&pid=\(pairingID)"),
            c("link: unknown parameter", "malformed", good + "&x=1"),
            c("link: unknown env", "malformed", good.replacingOccurrences(of: "env=production", with: "env=staging")),
            c("link: short credential", "malformed",
              good.replacingOccurrences(of: b64(credential), with: b64(Array(credential.prefix(16))))),
            c("link: outpost key not on the curve", "invalid_key", badPoint.link),
            c("link: plain http relay", "malformed", httpRelay.link),
            c("link: relay with a path", "malformed", pathRelay.link),
            c("link: other scheme", "malformed", good.replacingOccurrences(of: "mailwake://", with: "https://")),
            c("manage link: push parameters without push scope", "malformed",
              manage + "&relay=\(LinkQuery.encode(aud))&env=production&pid=\(pairingID)&cred=\(b64(credential))"),
            c("manage link: push scope without pairing parameters", "malformed",
              manage.replacingOccurrences(of: "scope=manage", with: "scope=manage,push")),
            c("manage link: unknown scope", "malformed", manage.replacingOccurrences(of: "scope=manage", with: "scope=admin")),
            c("manage link: short pin", "malformed", manage.replacingOccurrences(of: b64(pin), with: b64(Array(pin.prefix(20))))),
        ]
    }
}

extension Array where Element == UInt8 {
    func flipping(_ bit: Int) -> [UInt8] {
        var copy = self
        copy[bit / 8] ^= 0x80 >> UInt8(bit % 8)
        return copy
    }
}
