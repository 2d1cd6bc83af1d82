import COpenSSLShims

extension P256.Signing {
    /// An ECDSA P-256 signature in the raw 64-byte `r‖s` form (JWS ES256,
    /// CryptoKit `rawRepresentation`).
    public struct ECDSASignature: Sendable, Hashable {
        /// The 64 bytes `r‖s`, each 32 bytes big-endian.
        public let rawRepresentation: [UInt8]

        /// Wraps a raw signature; anything but exactly 64 bytes is refused.
        public init(rawRepresentation: [UInt8]) throws(CryptoError) {
            guard rawRepresentation.count == 64 else {
                throw CryptoError(.invalidSignatureEncoding, "a raw P-256 signature is 64 bytes, got \(rawRepresentation.count)")
            }
            self.rawRepresentation = rawRepresentation
        }

        init(uncheckedRaw: [UInt8]) { rawRepresentation = uncheckedRaw }

        /// Converts a DER `ECDSA-Sig-Value` (as in X.509 and OpenSSL) to raw form.
        public init(derRepresentation: [UInt8]) throws(CryptoError) {
            var raw = [UInt8](repeating: 0, count: 64)
            let rc = derRepresentation.withUnsafeBufferPointer { d in
                raw.withUnsafeMutableBufferPointer { r in
                    mw_ecdsa_der_to_raw(d.baseAddress, d.count, r.baseAddress)
                }
            }
            guard rc == 1 else {
                throw CryptoError(.invalidSignatureEncoding, "not a DER ECDSA signature with 256-bit r and s")
            }
            rawRepresentation = raw
        }

        /// The DER `ECDSA-Sig-Value` encoding.
        public var derRepresentation: [UInt8] {
            var out = [UInt8](repeating: 0, count: 80)
            var written = 0
            let rc = rawRepresentation.withUnsafeBufferPointer { r in
                out.withUnsafeMutableBufferPointer { o in
                    mw_ecdsa_raw_to_der(r.baseAddress, o.baseAddress, o.count, &written)
                }
            }
            precondition(rc == 1, "DER-encoding two 32-byte integers cannot fail")
            return Array(out[..<written])
        }
    }
}
