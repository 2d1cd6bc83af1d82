import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeProtocol

/// The commands of `mailwake-protocol`.
enum Commands {
    static func printJSON(_ build: (inout JSONWriter) -> Void) {
        var w = JSONWriter()
        w.beginObject()
        build(&w)
        w.endObject()
        StandardStreams.write(bytes: w.bytes + [0x0A])
    }

    static func decodeKey(_ s: String, option: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(s) else { throw ProtocolError(.malformed, "\(option) is not base64url without padding") }
        return bytes
    }

    static func readBody(_ path: String) throws -> [UInt8] {
        if path == "-" { return try StandardStreams.readInput() }
        guard let data = FileManager.default.contents(atPath: path) else { throw ToolError("cannot read \(path)") }
        return Array(data)
    }

    static func now() -> Int64 { WallClock.seconds() }

    // MARK: keygen

    static let keygen = CommandLineTool.Command(
        CommandSpec("keygen", summary: "Generate a signing and an agreement key pair (the outpost or device keys).",
                    options: [OptionSpec("out", value: "FILE", required: true,
                                         help: "where to write the JSON key file (mode 0600, never overwritten)")])
    ) { args in
        let file = try KeyFile.generate()
        let path = try args.required("out")
        try file.write(to: path)
        // Only the public half goes to stdout; the private keys stay in the 0600 file.
        StandardStreams.write(bytes: file.publicJSONBytes)
        return .success
    }

    // MARK: fingerprint

    static let fingerprint = CommandLineTool.Command(
        CommandSpec("fingerprint", summary: "Print the fingerprint and id (PROTOCOL §2) of a public key.", positionals: ["B64U"])
    ) { args in
        let key = try decodeKey(args.positionals[0], option: "key")
        guard key.count == 65 else { throw ProtocolError(.malformed, "a public key is 65 bytes (X9.63 uncompressed), got \(key.count)") }
        guard (try? P256.Signing.PublicKey(x963Representation: key)) != nil else {
            throw ProtocolError(.invalidKey, "not a valid X9.63 P-256 public key")
        }
        printJSON { w in
            w.string("fingerprint", KeyIdentity.fingerprint(of: key))
            w.string("id", KeyIdentity.id(of: key))
        }
        return .success
    }

    // MARK: seal

    static let seal = CommandLineTool.Command(
        CommandSpec("seal", summary: "Seal the plaintext on stdin for a device and print the envelope (PROTOCOL §4, §5).", options: [
            OptionSpec("identity", value: "FILE", required: true, help: "keygen file whose signing key is the outpost identity"),
            OptionSpec("device-key", value: "B64U", required: true, help: "the device's key-agreement public key (X9.63)"),
            OptionSpec("aud", value: "URL", required: true, help: "the relay origin"),
            OptionSpec("pairing", value: "ID", required: true, help: "the pairing id"),
            OptionSpec("event", value: "ID", required: true, help: "the event id (lower-case UUIDv7)"),
            OptionSpec("iat", value: "N", required: true, help: "issued-at, Unix seconds"),
            OptionSpec("kind", value: "KIND", help: "notification (default) or live-activity"),
            OptionSpec("activity-json", value: "JSON", help: "the activity object, required for live-activity"),
        ])
    ) { args in
        let identity = try KeyFile.read(try args.required("identity"))
        let deviceKey = try P256.KeyAgreement.PublicKey(x963Representation: try decodeKey(try args.required("device-key"),
                                                                                          option: "device-key"))
        guard let iat = try args.int64("iat"), iat >= 0 else { throw UsageError("--iat must be a non-negative integer") }
        let kindName = args.value("kind") ?? EnvelopeKind.notification.rawValue
        guard let kind = EnvelopeKind(rawValue: kindName) else { throw UsageError("--kind must be notification or live-activity") }
        var activity: ActivityInfo?
        if let json = args.value("activity-json") {
            activity = try ActivityInfo.decode(Array(json.utf8))
        }
        let context = EncryptionContext(aud: try args.required("aud"), pairingID: try args.required("pairing"),
                                        eventID: try args.required("event"),
                                        kind: kind, iat: UInt64(iat), activity: activity)
        let plaintext = try StandardStreams.readInput(limit: Envelope.maxCiphertextBytes)
        let envelope = try EnvelopeSealer(identity: identity.signing).seal(plaintext, to: deviceKey, context: context)
        StandardStreams.write(bytes: envelope.jsonBytes + [0x0A])
        return .success
    }

    // MARK: open

    static let open = CommandLineTool.Command(
        CommandSpec("open", summary: "Open the envelope on stdin as the device does and print the plaintext (PROTOCOL §4).", options: [
            OptionSpec("keys", value: "FILE", required: true, help: "the device's keygen file"),
            OptionSpec("outpost-key", value: "B64U", required: true, help: "the outpost identity key pinned at pairing"),
            OptionSpec("aud", value: "URL", required: true, help: "the relay origin from the pairing link"),
            OptionSpec("pairing", value: "ID", required: true, help: "this pairing's id"),
        ])
    ) { args in
        let keys = try KeyFile.read(try args.required("keys"))
        let outpostKey = try P256.Signing.PublicKey(x963Representation: try decodeKey(try args.required("outpost-key"),
                                                                                      option: "outpost-key"))
        let envelope = try Envelope.decode(try StandardStreams.readInput(limit: Envelope.maxJSONBytes + 1))
        let opener = EnvelopeOpener(agreementKey: keys.agreement, outpostKey: outpostKey, audience: try args.required("aud"),
                                    pairingID: try args.required("pairing"))
        let plaintext = try opener.open(envelope)
        StandardStreams.write(bytes: plaintext)
        return .success
    }

    // MARK: sign-request / verify-request

    static let signRequest = CommandLineTool.Command(
        CommandSpec("sign-request", summary: "Print the Mailwake-Signature header for a request (PROTOCOL §8).", options: [
            OptionSpec("keys", value: "FILE", required: true, help: "keygen file of the signer"),
            OptionSpec("method", value: "M", required: true, help: "HTTP method"),
            OptionSpec("origin", value: "O", required: true, help: "the receiver's public origin"),
            OptionSpec("path", value: "P", required: true, help: "path and query exactly as sent"),
            OptionSpec("body-file", value: "F", required: true, help: "file with the exact body bytes ('-' for stdin)"),
            OptionSpec("ts", value: "N", help: "timestamp, default now"),
            OptionSpec("nonce", value: "B64U", help: "16-byte nonce, default random"),
        ])
    ) { args in
        let keys = try KeyFile.read(try args.required("keys"))
        let nonce = try args.value("nonce").map { try decodeKey($0, option: "nonce") }
        let header = try RequestSigner(key: keys.signing).sign(
            method: try args.required("method"), origin: try args.required("origin"), pathAndQuery: try args.required("path"),
            body: try readBody(try args.required("body-file")), timestamp: try args.int64("ts") ?? now(), nonce: nonce)
        printJSON { w in w.string("header", header.value) }
        return .success
    }

    static let verifyRequest = CommandLineTool.Command(
        CommandSpec("verify-request", summary: "Check a Mailwake-Signature header against a request (PROTOCOL §8).", options: [
            OptionSpec("public-key", value: "B64U", required: true, help: "the signer's signing public key"),
            OptionSpec("header", value: "H", required: true, help: "the header value"),
            OptionSpec("method", value: "M", required: true, help: "HTTP method"),
            OptionSpec("origin", value: "O", required: true, help: "this receiver's public origin"),
            OptionSpec("path", value: "P", required: true, help: "path and query as received"),
            OptionSpec("body-file", value: "F", required: true, help: "file with the body bytes ('-' for stdin)"),
            OptionSpec("now", value: "N", help: "the receiver's clock, default now"),
        ])
    ) { args in
        let key = try P256.Signing.PublicKey(x963Representation: try decodeKey(try args.required("public-key"), option: "public-key"))
        let header = try SignatureHeader.parse(try args.required("header"))
        try RequestVerifier.verify(header, method: try args.required("method"), origin: try args.required("origin"),
                                   pathAndQuery: try args.required("path"), body: try readBody(try args.required("body-file")),
                                   publicKey: key, now: try args.int64("now") ?? now())
        printJSON { w in
            w.bool("valid", true)
            w.string("keyid", header.keyID)
        }
        return .success
    }
}
