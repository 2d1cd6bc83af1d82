import COpenSSLShims

/// A parsed set of trusted root certificates (an OpenSSL `X509_STORE` without default paths).
// Safe to share: the store is immutable after init and OpenSSL locks its lookups (concurrent verifications share it).
public final class TrustedRoots: @unchecked Sendable {
    private let handle: OpaquePointer

    /// Parses `roots` (DER); only these certificates are trusted, none of the system's.
    public init(der roots: [[UInt8]]) throws(CryptoError) {
        guard let handle = mw_x509_roots_new() else {
            throw CryptoError(.internalFailure, "OpenSSL could not create a certificate store")
        }
        self.handle = handle
        for (index, der) in roots.enumerated() {
            let rc = der.withUnsafeBufferPointer { mw_x509_roots_add_der(handle, $0.baseAddress, $0.count) }
            guard rc == 1 else {
                // deinit frees the handle.
                throw CryptoError(.invalidEncoding, "trusted root #\(index) is not a DER X.509 certificate")
            }
        }
    }

    deinit { mw_x509_roots_free(handle) }

    /// Verifies leaf ← intermediate ← one of the roots at `seconds` since 1970; nil when the DER is malformed.
    public func verify(leaf: [UInt8], intermediate: [UInt8], atSeconds seconds: Int64) -> ChainResult? {
        var kind: Int32 = 0
        var x509Error: Int32 = 0
        let rc = leaf.withUnsafeBufferPointer { l in
            intermediate.withUnsafeBufferPointer { i in
                mw_x509_verify_chain(handle, l.baseAddress, l.count, i.baseAddress, i.count, seconds, &kind, &x509Error)
            }
        }
        switch rc {
        case 1: return .trusted
        case 0:
            let reason = String(cString: mw_x509_error_string(x509Error))
            switch Int(kind) {
            case MW_X509_FAIL_EXPIRED: return .expired(reason)
            case MW_X509_FAIL_NOT_YET_VALID: return .notYetValid(reason)
            default: return .untrusted(reason)
            }
        default: return nil
        }
    }
}
