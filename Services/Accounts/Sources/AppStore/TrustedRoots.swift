import COpenSSLShims

/// A parsed set of trusted root certificates (an OpenSSL `X509_STORE`).
// Safe to share: the store is immutable after init and OpenSSL locks its lookups (concurrent verifications share it).
final class TrustedRoots: @unchecked Sendable {
    private let handle: OpaquePointer

    init(der roots: [[UInt8]]) throws(AppStoreVerificationError) {
        guard !roots.isEmpty else {
            throw AppStoreVerificationError(.configurationInvalid, "no trusted root certificate is configured")
        }
        guard let handle = mw_x509_roots_new() else {
            throw AppStoreVerificationError(.configurationInvalid, "OpenSSL could not create a certificate store")
        }
        self.handle = handle
        for (index, der) in roots.enumerated() {
            let rc = der.withUnsafeBufferPointer { mw_x509_roots_add_der(handle, $0.baseAddress, $0.count) }
            guard rc == 1 else {
                // deinit frees the handle.
                throw AppStoreVerificationError(.configurationInvalid, "trusted root #\(index) is not a DER X.509 certificate")
            }
        }
    }

    deinit { mw_x509_roots_free(handle) }

    enum ChainResult: Equatable {
        case trusted
        case untrusted(String)
        case expired(String)
        case notYetValid(String)
    }

    /// Verifies leaf ← intermediate ← one of the roots at `seconds` since 1970.
    func verify(leaf: [UInt8], intermediate: [UInt8], atSeconds seconds: Int64) -> ChainResult? {
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

/// Strict DER certificate helpers over the C bridge.
enum X509DER {
    static func isCertificate(_ der: [UInt8]) -> Bool {
        der.withUnsafeBufferPointer { mw_x509_der_is_certificate($0.baseAddress, $0.count) } == 1
    }

    /// Whether the certificate has an extension with `oid`; nil when malformed.
    static func hasExtension(_ der: [UInt8], oid: String) -> Bool? {
        let rc = der.withUnsafeBufferPointer { d in
            oid.withCString { mw_x509_has_extension(d.baseAddress, d.count, $0) }
        }
        switch rc {
        case 1: return true
        case 0: return false
        default: return nil
        }
    }

    /// The X9.63 point of a P-256 public key; nil when the key is another kind or the DER is malformed.
    static func p256PublicKey(_ der: [UInt8]) -> [UInt8]? {
        var point = [UInt8](repeating: 0, count: 65)
        let rc = der.withUnsafeBufferPointer { d in
            point.withUnsafeMutableBufferPointer { mw_x509_p256_public_key(d.baseAddress, d.count, $0.baseAddress) }
        }
        return rc == 1 ? point : nil
    }
}
