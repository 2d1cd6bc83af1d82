import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeProtocol

extension Commands {
    /// The device side of PROTOCOL §9 step 3.
    static let consent = CommandLineTool.Command(
        CommandSpec("consent",
                    summary: "Consent to a push-pairing link as the App does: print the body of POST /v1/pairings/{id}/consent " +
                             "(PROTOCOL §9).",
                    positionals: ["LINK"],
                    options: [OptionSpec("keys", value: "FILE", required: true, help: "the device's keygen file")])
    ) { args in
        let keys = try KeyFile.read(try args.required("keys"))
        let link = try PairingLink.parse(args.positionals[0])
        let submission = try ConsentSubmission.create(for: link, signingKey: keys.signing, agreementKey: keys.agreement.publicKey)
        StandardStreams.write(bytes: submission.jsonBytes + [0x0A])
        return .success
    }

    /// The outpost side of PROTOCOL §9 step 4.
    static let verifyConsent = CommandLineTool.Command(
        CommandSpec("verify-consent",
                    summary: "Verify a consent (JSON on stdin, the consent object or the whole submission) as the outpost does: mac " +
                             "first, then the device signature, pairing, relay and expiry (PROTOCOL §9).",
                    positionals: ["LINK"],
                    options: [OptionSpec("now", value: "N", help: "Unix seconds to check expiry against, default now")])
    ) { args in
        let link = try PairingLink.parse(args.positionals[0])
        let input = try StandardStreams.readInput(limit: 8192)
        let consent: PairingConsent
        if String(decoding: input, as: UTF8.self).contains(#""relay_token""#) {
            consent = try StrictJSON.decode(ConsentSubmission.self, from: input, limits: .init(maxBytes: 8192)).consent
        } else {
            consent = try PairingConsent.decode(input)
        }
        try consent.verify(outpostKey: link.outpostKey, secrets: try PairingSecrets(credential: link.credential), audience: link.relay,
                           pairingID: link.pairingID, expectedExpiry: link.expiresAt, now: try args.int64("now") ?? now())
        printJSON { w in
            w.string("status", "valid")
            w.string("device_id", consent.deviceID)
            w.string("device_fingerprint", KeyIdentity.fingerprint(of: consent.deviceSigningKey))
        }
        return .success
    }
}
