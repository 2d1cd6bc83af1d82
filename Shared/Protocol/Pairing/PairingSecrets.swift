public import MailwakeCrypto

/// The two keys derived from a push-pairing credential (PROTOCOL.md §9).
///
/// `relayToken` goes to the relay, which stores only its SHA-256;
/// `macKey` never leaves the outpost and the App, so a consent's `mac`
/// proves its maker scanned the outpost's code.
public struct PairingSecrets: Sendable {
    /// HKDF info for the token the App presents to the relay.
    public static let relayTokenInfo = "mailwake/pair/relay-token/v2"
    /// HKDF info for the consent MAC key.
    public static let macKeyInfo = "mailwake/pair/consent-mac/v2"

    /// `HKDF-SHA256(cred, salt: empty, info: relayTokenInfo, 32)`.
    public let relayToken: [UInt8]
    /// `HKDF-SHA256(cred, salt: empty, info: macKeyInfo, 32)`.
    public let macKey: SymmetricKey

    /// Derives both keys from the 32-byte credential `cred`.
    public init(credential: [UInt8]) throws(ProtocolError) {
        guard credential.count == 32 else { throw ProtocolError(.malformed, "the pairing credential must be 32 bytes") }
        do {
            relayToken = try HKDF.deriveKey(inputKeyMaterial: credential, salt: [], info: Array(Self.relayTokenInfo.utf8),
                                            outputByteCount: 32)
                .withUnsafeBytes { Array($0) }
            macKey = try HKDF.deriveKey(inputKeyMaterial: credential, salt: [], info: Array(Self.macKeyInfo.utf8), outputByteCount: 32)
        } catch {
            throw ProtocolError(.internalFailure, "deriving the pairing keys failed")
        }
    }

    /// `SHA-256(relay_token)`: what the outpost registers and the relay stores.
    public var relayTokenHash: [UInt8] { SHA256.hash(relayToken).bytes }

    /// `HMAC-SHA256(mac_key, consent_input)`.
    public func mac(_ consentInput: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(for: consentInput, using: macKey)
    }

    /// Whether `mac` authenticates `consentInput` (constant time).
    public func isValidMAC(_ mac: [UInt8], for consentInput: [UInt8]) -> Bool {
        ConstantTime.equals(self.mac(consentInput), mac)
    }
}
