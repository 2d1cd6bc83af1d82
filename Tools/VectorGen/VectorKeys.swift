import MailwakeCrypto
import MailwakeProtocol

/// Deterministic keys and bytes for the committed vectors: every value is
/// derived from a label, so a regenerated file differs only in signatures.
enum VectorKeys {
    static func scalar(_ label: String) -> [UInt8] {
        SHA256.hash(Array("mailwake-vectors/key/\(label)".utf8)).bytes
    }

    static func bytes(_ label: String, count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var counter = 0
        while out.count < count {
            out += SHA256.hash(Array("mailwake-vectors/bytes/\(label)/\(counter)".utf8)).bytes
            counter += 1
        }
        return Array(out.prefix(count))
    }

    static func signing(_ label: String) -> P256.Signing.PrivateKey {
        try! P256.Signing.PrivateKey(rawRepresentation: scalar(label))
    }

    static func agreement(_ label: String) -> P256.KeyAgreement.PrivateKey {
        try! P256.KeyAgreement.PrivateKey(rawRepresentation: scalar(label))
    }

    static func b64(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }
}
