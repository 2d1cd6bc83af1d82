import COpenSSLShims

/// Strict DER certificate checks over the C bridge.
public enum X509DER {
    /// Whether `der` is exactly one DER X.509 certificate.
    public static func isCertificate(_ der: [UInt8]) -> Bool {
        der.withUnsafeBufferPointer { mw_x509_der_is_certificate($0.baseAddress, $0.count) } == 1
    }

    /// Whether the certificate has an extension with `oid`; nil when malformed.
    public static func hasExtension(_ der: [UInt8], oid: String) -> Bool? {
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
    public static func p256PublicKey(_ der: [UInt8]) -> [UInt8]? {
        var point = [UInt8](repeating: 0, count: Int(MW_X509_P256_POINT_BYTES))
        let rc = der.withUnsafeBufferPointer { d in
            point.withUnsafeMutableBufferPointer { mw_x509_p256_public_key(d.baseAddress, d.count, $0.baseAddress) }
        }
        return rc == 1 ? point : nil
    }
}
