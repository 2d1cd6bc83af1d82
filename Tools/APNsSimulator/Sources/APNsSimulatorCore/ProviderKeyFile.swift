public import MailwakeCrypto

/// Reads the key the simulator verifies provider tokens with.
public enum ProviderKeyFile {
    /// The P-256 public key in `pem`: a `PUBLIC KEY` block, or the
    /// `PRIVATE KEY` (PKCS#8, Apple's `.p8`) it is derived from.
    public static func publicKey(pem: String) throws -> P256.Signing.PublicKey {
        if pem.contains("-----BEGIN PUBLIC KEY-----") {
            return try P256.Signing.PublicKey(pemRepresentation: pem)
        }
        if pem.contains("-----BEGIN PRIVATE KEY-----") {
            return try P256.Signing.PrivateKey(pemRepresentation: pem).publicKey
        }
        throw SimulatorError("the key file holds neither a PEM PUBLIC KEY nor a PKCS#8 PRIVATE KEY (.p8)")
    }
}
