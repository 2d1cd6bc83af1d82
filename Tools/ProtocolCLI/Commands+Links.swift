import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeProtocol

extension Commands {
    static let pairLink = CommandLineTool.Command(
        CommandSpec("pair-link", summary: "Build a push-pairing link (PROTOCOL §9), or a management link (§10) with --url.", options: [
            OptionSpec("outpost-key", value: "B64U", required: true, help: "the outpost identity public key"),
            OptionSpec("relay", value: "URL", help: "the relay origin (pairing, or management offering push)"),
            OptionSpec("env", value: "ENV", help: "production (default) or sandbox"),
            OptionSpec("pairing", value: "ID", help: "pairing id, default random"),
            OptionSpec("credential", value: "B64U", help: "32-byte one-time credential, default random"),
            OptionSpec("exp", value: "N", help: "expiry, Unix seconds, default now + 300"),
            OptionSpec("url", value: "URL", help: "management: the outpost HTTPS origin"),
            OptionSpec("pin", value: "B64U", help: "management: SHA-256 of the outpost TLS SPKI"),
            OptionSpec("token", value: "B64U", help: "management: 32-byte token, default random"),
            OptionSpec("scope", value: "LIST", help: "management: comma list of manage,content,push"),
        ])
    ) { args in
        let ok = try decodeKey(try args.required("outpost-key"), option: "outpost-key")
        let exp = try args.int64("exp") ?? now() + 300
        guard let env = PushEnvironment(rawValue: args.value("env")
            ?? "production") else { throw UsageError("--env must be production or sandbox") }
        let pid = try args.value("pairing") ?? PairingID.generate()
        let cred = try args.value("credential").map { try decodeKey($0, option: "credential") } ?? SecureRandom.bytes(32)
        let link: String
        if let url = args.value("url") {
            guard let pinText = args.value("pin"),
                  let scopeText = args.value("scope") else { throw UsageError("a management link needs --pin and --scope") }
            let scopes = try scopeText.split(separator: ",").map { s -> ManagementScope in
                guard let scope = ManagementScope(rawValue: String(s)) else { throw UsageError("unknown scope \(s)") }
                return scope
            }
            let token = try args.value("token").map { try decodeKey($0, option: "token") } ?? SecureRandom.bytes(32)
            var push: ManagementLink.PushOffer?
            if scopes.contains(.push) {
                push = .init(relay: try args.required("relay"), environment: env, pairingID: pid, credential: cred)
            }
            link = ManagementLink(outpostKey: ok, url: url, pin: try decodeKey(pinText, option: "pin"), token: token, scopes: scopes,
                                  expiresAt: exp, push: push).link
            _ = try ManagementLink.parse(link)
        } else {
            link = PairingLink(outpostKey: ok, relay: try args.required("relay"), environment: env, pairingID: pid, credential: cred,
                               expiresAt: exp).link
            _ = try PairingLink.parse(link)
        }
        printJSON { w in
            w.string("link", link)
            w.string("fingerprint", KeyIdentity.fingerprint(of: ok))
        }
        return .success
    }

    static let parseLink = CommandLineTool.Command(
        CommandSpec("parse-link", summary: "Parse and validate a mailwake://pair or mailwake://manage link.", positionals: ["LINK"])
    ) { args in
        let text = args.positionals[0]
        if text.hasPrefix("mailwake://manage?") {
            let link = try ManagementLink.parse(text)
            printJSON { w in
                w.string("kind", "manage")
                w.base64URL("outpost_key", link.outpostKey)
                w.string("fingerprint", KeyIdentity.fingerprint(of: link.outpostKey))
                w.string("url", link.url)
                w.base64URL("pin", link.pin)
                w.base64URL("token", link.token)
                w.beginArray("scopes")
                for s in link.scopes { w.string(nil, s.rawValue) }
                w.endArray()
                w.int("exp", link.expiresAt)
                if let push = link.push {
                    w.string("relay", push.relay)
                    w.string("env", push.environment.rawValue)
                    w.string("pairing_id", push.pairingID)
                    w.base64URL("credential", push.credential)
                }
            }
        } else {
            let link = try PairingLink.parse(text)
            printJSON { w in
                w.string("kind", "pair")
                w.base64URL("outpost_key", link.outpostKey)
                w.string("fingerprint", link.outpostFingerprint)
                w.string("relay", link.relay)
                w.string("env", link.environment.rawValue)
                w.string("pairing_id", link.pairingID)
                w.base64URL("credential", link.credential)
                w.int("exp", link.expiresAt)
                // What the App sends the relay, and what the relay stores (PROTOCOL §9).
                if let secrets = try? PairingSecrets(credential: link.credential) {
                    w.base64URL("relay_token", secrets.relayToken)
                    w.base64URL("relay_token_hash", secrets.relayTokenHash)
                }
            }
        }
        return .success
    }
}
