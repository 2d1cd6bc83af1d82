import MailwakeCrypto

/// Seals values stored in the database with AES-256-GCM under a key derived
/// from `secret.key` for each purpose; the purpose and the row's name are the
/// associated data, so a sealed value moved to another row does not open.
///
/// Format: `0x01` ‖ nonce (12) ‖ ciphertext ‖ tag (16).
public struct SecretBox: Sendable {
    static let version: UInt8 = 1
    let secret: SecretKey

    public init(secret: SecretKey) { self.secret = secret }

    /// Seals `plaintext` for `purpose`, bound to `context` (the row it lives in).
    public func seal(_ plaintext: [UInt8], purpose: String, context: String) throws(OutpostError) -> [UInt8] {
        let key = try secret.sealingKey(purpose: purpose)
        do {
            let nonce = try SecureRandom.bytes(12)
            return [Self.version] + nonce + (try AESGCM.seal(plaintext, using: key, nonce: nonce, authenticating: Array(context.utf8)))
        } catch {
            throw OutpostError(.sealedData, "cannot seal a value for \(purpose)")
        }
    }

    /// Opens what `seal` made; a wrong `secret.key` or a changed byte fails.
    public func open(_ sealed: [UInt8], purpose: String, context: String) throws(OutpostError) -> [UInt8] {
        guard sealed.count >= 1 + 12 + 16, sealed[0] == Self.version else {
            throw OutpostError(.sealedData, "a sealed \(purpose) value is damaged")
        }
        let key = try secret.sealingKey(purpose: purpose)
        do {
            return try AESGCM.open(Array(sealed[13...]), using: key, nonce: Array(sealed[1..<13]), authenticating: Array(context.utf8))
        } catch {
            throw OutpostError(.sealedData,
                               "the sealed \(purpose) does not open with this secret.key: the key is not the one this database was made " +
                               "with, or the database was altered")
        }
    }
}
