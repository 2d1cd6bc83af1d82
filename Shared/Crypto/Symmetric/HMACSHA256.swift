import COpenSSLShims

/// HMAC with SHA-256 (RFC 2104).
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let rc = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { mw_hmac_sha256(k.baseAddress, k.count, m.baseAddress, m.count, $0.baseAddress) }
            }
        }
        precondition(rc == 1, "HMAC-SHA256 failed: OpenSSL could not be initialised")
        return out
    }

    /// The 32-byte authentication code of `message` under a key held in wiped memory (no copy of the key is made).
    public static func authenticationCode(for message: [UInt8], using key: SymmetricKey) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let rc = key.withUnsafeBytes { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer {
                    mw_hmac_sha256(k.baseAddress?.assumingMemoryBound(to: UInt8.self), k.count, m.baseAddress, m.count, $0.baseAddress)
                }
            }
        }
        precondition(rc == 1, "HMAC-SHA256 failed: OpenSSL could not be initialised")
        return out
    }

    /// Whether `code` authenticates `message` under `key` (constant time).
    public static func isValidAuthenticationCode(_ code: [UInt8], for message: [UInt8], key: [UInt8]) -> Bool {
        ConstantTime.equals(authenticationCode(for: message, key: key), code)
    }
}
