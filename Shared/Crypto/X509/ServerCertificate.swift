import COpenSSLShims

/// A TLS server certificate in PEM form, with what a client pins: the
/// SHA-256 of its SubjectPublicKeyInfo (PROTOCOL.md §10).
public struct ServerCertificate: Sendable, Hashable {
    /// The PEM certificate (chain; the first one is the server's).
    public var certificatePEM: String

    public init(certificatePEM: String) {
        self.certificatePEM = certificatePEM
    }

    /// SHA-256 of the first certificate's DER SubjectPublicKeyInfo.
    public func spkiSHA256() throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let rc = certificatePEM.withCString { mw_x509_pem_spki_sha256($0, strlenASCII($0), &out) }
        guard rc == 0 else { throw CryptoError(.invalidEncoding, "not a PEM certificate") }
        return out
    }

    /// The first certificate's notAfter, Unix seconds.
    public func notAfter() throws(CryptoError) -> Int64 {
        let t = certificatePEM.withCString { mw_x509_pem_not_after($0, strlenASCII($0)) }
        guard t >= 0 else { throw CryptoError(.invalidEncoding, "not a PEM certificate") }
        return Int64(t)
    }

    /// Creates a self-signed P-256 certificate and its private key (PKCS#8 PEM).
    ///
    /// - Parameters:
    ///   - commonName: the subject's CN.
    ///   - subjectAltNames: DNS names and IP literals the certificate is for.
    ///   - days: validity.
    public static func selfSigned(commonName: String, subjectAltNames: [String],
                                  days: Int = 3650) throws(CryptoError) -> (certificate: ServerCertificate, privateKeyPEM: String) {
        var cert: UnsafeMutablePointer<CChar>?
        var key: UnsafeMutablePointer<CChar>?
        let cStrings = subjectAltNames.map { strdupASCII($0) }
        defer { cStrings.forEach { $0.deallocate() } }
        let rc = cStrings.map { UnsafePointer<CChar>?(UnsafePointer($0)) }.withUnsafeBufferPointer { sans in
            commonName.withCString { mw_x509_self_signed($0, sans.baseAddress, sans.count, Int32(days), &cert, &key) }
        }
        guard rc == 0, let cert, let key else { throw CryptoError(.internalFailure, "could not create a self-signed certificate") }
        defer {
            mw_x509_free_pem(cert)
            mw_x509_free_pem(key)
        }
        return (ServerCertificate(certificatePEM: String(cString: cert)), String(cString: key))
    }
}

private func strlenASCII(_ p: UnsafePointer<CChar>) -> Int {
    var n = 0
    while p[n] != 0 { n += 1 }
    return n
}

private func strdupASCII(_ s: String) -> UnsafeMutablePointer<CChar> {
    let bytes = Array(s.utf8CString)
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    p.initialize(from: bytes, count: bytes.count)
    return p
}
