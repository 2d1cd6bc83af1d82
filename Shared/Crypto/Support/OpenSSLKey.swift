import COpenSSLShims

/// Owns one OpenSSL key handle and frees it exactly once.
// @unchecked Sendable is safe because the EVP_PKEY is never mutated after creation and OpenSSL 3 allows concurrent read-only use (sign,
// verify, derive).
final class OpenSSLKey: @unchecked Sendable {
    let handle: OpaquePointer

    private init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { mw_key_free(handle) }

    static func generate() throws(CryptoError) -> OpenSSLKey {
        guard let h = mw_p256_generate() else {
            throw CryptoError(.internalFailure, "P-256 key generation failed")
        }
        return OpenSSLKey(h)
    }

    static func privateKey(raw: [UInt8]) throws(CryptoError) -> OpenSSLKey {
        guard raw.count == 32 else {
            throw CryptoError(.invalidLength, "a raw P-256 private key is 32 bytes, got \(raw.count)")
        }
        let h = raw.withUnsafeBufferPointer { mw_p256_private_from_raw($0.baseAddress, $0.count) }
        guard let h else {
            throw CryptoError(.invalidPrivateKey, "the scalar is zero or not below the P-256 group order")
        }
        return OpenSSLKey(h)
    }

    static func privateKey(pkcs8 der: [UInt8]) throws(CryptoError) -> OpenSSLKey {
        let h = der.withUnsafeBufferPointer { mw_p256_private_from_pkcs8($0.baseAddress, $0.count) }
        guard let h else {
            throw CryptoError(.invalidEncoding, "not a PKCS#8 PrivateKeyInfo holding a valid P-256 key")
        }
        return OpenSSLKey(h)
    }

    static func publicKey(x963: [UInt8]) throws(CryptoError) -> OpenSSLKey {
        guard x963.count == 65 else {
            throw CryptoError(.invalidPublicKey, "an X9.63 P-256 public key is 65 bytes, got \(x963.count)")
        }
        let h = x963.withUnsafeBufferPointer { mw_p256_public_from_x963($0.baseAddress, $0.count) }
        guard let h else {
            throw CryptoError(.invalidPublicKey, "the bytes are not an uncompressed point on P-256")
        }
        return OpenSSLKey(h)
    }

    func rawPrivate() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let rc = out.withUnsafeMutableBufferPointer { mw_p256_export_raw_private(handle, $0.baseAddress) }
        precondition(rc == 1, "exporting a private scalar from a private key handle cannot fail")
        return out
    }

    func x963() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 65)
        let rc = out.withUnsafeMutableBufferPointer { mw_p256_export_x963(handle, $0.baseAddress) }
        precondition(rc == 1, "exporting the public point of a P-256 key cannot fail")
        return out
    }

    func pkcs8() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 256)
        var written = 0
        let rc = out.withUnsafeMutableBufferPointer { mw_p256_export_pkcs8(handle, $0.baseAddress, $0.count, &written) }
        precondition(rc == 1, "encoding a P-256 private key as PKCS#8 cannot fail")
        return Array(out[..<written])
    }
}
