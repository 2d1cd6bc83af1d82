import MailwakeCrypto

/// Pairing identifiers: `b64u(16 random bytes)` (PROTOCOL.md §2).
public enum PairingID {
    /// A fresh random pairing id.
    public static func generate() throws(ProtocolError) -> String {
        do {
            return Base64URL.encode(try SecureRandom.bytes(16))
        } catch {
            throw ProtocolError(.internalFailure, "random generator failed")
        }
    }

    /// Whether `id` is 22 base64url characters encoding 16 bytes.
    public static func isValid(_ id: String) -> Bool {
        KeyIdentity.isWellFormedID(id)
    }

    static func check(_ id: String, field: String = "pairing_id") throws(ProtocolError) {
        guard isValid(id) else { throw .malformed("\(field) must be b64u of 16 bytes") }
    }
}
