public import MailwakeCrypto

/// Identifiers and fingerprints derived from public keys (PROTOCOL.md §2).
public enum KeyIdentity {
    /// `b64u(SHA-256(x963(pub))[0..<16])`: 22 characters. Outpost ids and
    /// device ids are both this function of the signing public key.
    public static func id(of x963: [UInt8]) -> String {
        Base64URL.encode(SHA256.hash(x963).bytes.prefix(16))
    }

    /// The id of a signing public key.
    public static func id(of key: P256.Signing.PublicKey) -> String {
        id(of: key.x963Representation)
    }

    /// The fingerprint shown to people: the first 16 bytes of
    /// `SHA-256(x963(pub))` as 8 groups of 4 upper-case hex digits.
    public static func fingerprint(of x963: [UInt8]) -> String {
        let digest = SHA256.hash(x963).bytes
        let hex = Array("0123456789ABCDEF".utf8)
        var groups: [String] = []
        for g in 0..<8 {
            let a = digest[2 * g], b = digest[2 * g + 1]
            let chars = [hex[Int(a >> 4)], hex[Int(a & 0xF)], hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            groups.append(String(decoding: chars, as: UTF8.self))
        }
        return groups.joined(separator: " ")
    }

    /// Whether `id` has the shape of a key id (22 base64url characters, 16 bytes).
    public static func isWellFormedID(_ id: String) -> Bool {
        id.utf8.count == 22 && Base64URL.decode(id)?.count == 16
    }
}
