/// NIST P-256 keys, shaped like CryptoKit's `P256` so App developers see the
/// same names on both sides.
public enum P256 {
    /// ECDSA with SHA-256.
    public enum Signing {}
    /// Elliptic-curve Diffie–Hellman.
    public enum KeyAgreement {}
}
