import Foundation
import MailwakeCrypto
import MailwakeProtocol
import TestSupport

/// Runs the operations named by negative vectors (Tests/Vectors/README.md)
/// against the Swift implementation.
enum VectorOperations {
    typealias JSON = [String: Any]

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
    }

    static func b64(_ input: JSON, _ key: String) throws -> [UInt8] {
        guard let s = input[key] as? String,
              let bytes = Base64URL.decode(s) else { throw FixtureError(description: "fixture field \(key) missing or not b64u") }
        return bytes
    }

    static func string(_ input: JSON, _ key: String) throws -> String {
        guard let s = input[key] as? String else { throw FixtureError(description: "fixture field \(key) missing") }
        return s
    }

    static func int(_ input: JSON, _ key: String) throws -> Int64 {
        guard let n = input[key] as? NSNumber else { throw FixtureError(description: "fixture field \(key) missing") }
        return n.int64Value
    }

    static func jsonBytes(_ value: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]))
    }

    static func envelopeBytes(_ input: JSON) throws -> [UInt8] {
        if let raw = input["envelope_json"] as? String { return Array(raw.utf8) }
        guard let obj = input["envelope"] else { throw FixtureError(description: "no envelope in fixture") }
        return try jsonBytes(obj)
    }

    /// Runs `operation` on `input`; returns nil on success or the error code.
    static func run(_ operation: String, _ input: JSON) throws -> String? {
        do {
            try perform(operation, input)
            return nil
        } catch let error as ProtocolError {
            return error.code.rawValue
        }
    }

    static func perform(_ operation: String, _ input: JSON) throws {
        switch operation {
        case "open":
            let envelope = try Envelope.decode(try envelopeBytes(input))
            let opener = EnvelopeOpener(
                agreementKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: b64(input, "device_agreement_private")),
                outpostKey: try P256.Signing.PublicKey(x963Representation: b64(input, "outpost_public")),
                audience: try string(input, "aud"), pairingID: try string(input, "pairing_id"))
            let seen = Set(input["seen_event_ids"] as? [String] ?? [])
            _ = try opener.open(envelope, alreadyAccepted: { seen.contains($0) })
        case "verify_envelope":
            let envelope = try Envelope.decode(try envelopeBytes(input))
            try EnvelopeVerifier.verify(envelope, outpostKey: try P256.Signing.PublicKey(x963Representation: b64(input, "outpost_public")))
        case "verify_consent":
            let consent = try PairingConsent.decode(try jsonBytes(input["consent"] as Any))
            try consent.verify(outpostKey: try b64(input, "outpost_public"),
                               secrets: try PairingSecrets(credential: try b64(input, "credential")),
                               audience: try string(input, "aud"), pairingID: try string(input, "pairing_id"), now: try int(input, "now"))
        case "verify_manage_consent":
            let body = try ManagementConsent.decode(try jsonBytes(input["body"] as Any))
            let offered = (input["offered_scopes"] as? [String] ?? []).compactMap(ManagementScope.init(rawValue:))
            try body.verify(outpostKey: try b64(input, "outpost_public"), token: try b64(input, "token"), offeredScopes: offered,
                            now: try int(input, "now"))
        case "verify_ref":
            _ = try MessageReference.verify(try string(input, "ref"),
                                            outpostKey: try P256.Signing.PublicKey(x963Representation: b64(input, "outpost_public")),
                                            deviceID: try string(input, "device_id"))
        case "verify_request":
            let header = try SignatureHeader.parse(try string(input, "header"))
            try RequestVerifier.verify(header, method: try string(input, "method"), origin: try string(input, "origin"),
                                       pathAndQuery: try string(input, "path"),
                                       body: try b64(input, "body"),
                                       publicKey: try P256.Signing.PublicKey(x963Representation: b64(input, "public_key")),
                                       now: try int(input, "now"))
            if (input["seen_nonces"] as? [String] ?? []).contains(Base64URL.encode(header.nonce)) {
                throw ProtocolError(.replayed, "nonce already seen")
            }
        case "parse_link":
            let link = try string(input, "link")
            if link.hasPrefix("mailwake://manage?") { _ = try ManagementLink.parse(link) } else { _ = try PairingLink.parse(link) }
        default:
            throw FixtureError(description: "unknown operation \(operation)")
        }
    }
}
