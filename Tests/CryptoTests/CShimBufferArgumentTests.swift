import COpenSSLShims
import MailwakeCrypto
import TestSupport
import Testing

/// The C shim's buffer arguments: a NULL pointer names no bytes, so it is accepted with a length of 0 and refused
/// with any other length (before, a NULL with a length read past a one-byte stand-in).
@Suite("C shim buffer arguments")
struct CShimBufferArgumentTests {
    private static let key = [UInt8](repeating: 7, count: 32)
    private static let nonce = [UInt8](repeating: 9, count: 16)

    @Test func aNullBufferWithoutLengthHashesAsEmpty() {
        var out = [UInt8](repeating: 0, count: 32)
        #expect(mw_sha256(nil, 0, &out) == 1)
        #expect(Hex.encode(out) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hashesRefuseANullBufferWithALength() {
        var out = [UInt8](repeating: 0, count: 32)
        #expect(mw_sha256(nil, 5, &out) == -1)
        let ctx = mw_sha256_new()
        defer { mw_sha256_free(ctx) }
        #expect(mw_sha256_update(ctx, nil, 5) == -1)
        #expect(mw_sha256_update(ctx, nil, 0) == 1)
    }

    @Test func macAndKeyDerivationRefuseANullBufferWithALength() {
        var out = [UInt8](repeating: 0, count: 32)
        let bytes: [UInt8] = [1, 2, 3]
        #expect(mw_hmac_sha256(nil, 3, bytes, 3, &out) == -1)
        #expect(mw_hmac_sha256(bytes, 3, nil, 3, &out) == -1)
        #expect(mw_hmac_sha256(bytes, 3, nil, 0, &out) == 1)
        #expect(mw_hkdf_sha256(nil, 3, nil, 0, nil, 0, &out, 32) == -1)
        #expect(mw_hkdf_sha256(bytes, 3, nil, 3, nil, 0, &out, 32) == -1)
        #expect(mw_hkdf_sha256(bytes, 3, nil, 0, nil, 3, &out, 32) == -1)
        #expect(mw_hkdf_sha256(bytes, 3, nil, 0, nil, 0, &out, 32) == 1)
        #expect(mw_scrypt(nil, 3, bytes, 3, 4, 1, 1, &out, 32) == -1)
        #expect(mw_scrypt(bytes, 3, nil, 3, 4, 1, 1, &out, 32) == -1)
        #expect(mw_scrypt(nil, 0, nil, 0, 4, 1, 1, &out, 32) == 1)
    }

    @Test func ciphersRefuseANullBufferWithALength() {
        var out = [UInt8](repeating: 0, count: 64)
        let bytes = [UInt8](repeating: 1, count: 16)
        let nonce = Array(Self.nonce.prefix(12))
        // Three of these (a NULL AAD with a length, to either call, and a NULL plaintext with one) OpenSSL refuses as
        // well, since it takes a NULL input as "finish": they state the contract, the guard is what keeps it for the
        // others, which fail without it.
        #expect(mw_aes256gcm_seal(Self.key, nonce, nil, 4, bytes, 16, &out) == -1)
        #expect(mw_aes256gcm_seal(Self.key, nonce, nil, 0, nil, 16, &out) == -1)
        #expect(mw_aes256gcm_seal(Self.key, nonce, nil, 0, nil, 0, &out) == 1)
        #expect(mw_aes256gcm_open(Self.key, nonce, nil, 0, nil, 32, &out) == -1)
        #expect(mw_aes256gcm_open(Self.key, nonce, nil, 4, out, 16, &out) == -1)
        var tag = [UInt8](repeating: 0, count: 16)
        #expect(mw_aes256gcm_seal(Self.key, nonce, nil, 0, nil, 0, &tag) == 1)
        #expect(mw_aes256gcm_open(Self.key, nonce, nil, 0, tag, 16, nil) == 1)  // an empty plaintext needs no output buffer
        tag[0] ^= 1
        #expect(mw_aes256gcm_open(Self.key, nonce, nil, 0, tag, 16, nil) == 0)
        #expect(mw_aes256cbc(1, Self.key, Self.nonce, nil, 16, &out) == -1)
        #expect(mw_aes256cbc(1, Self.key, Self.nonce, nil, 0, &out) == 16)
    }

    @Test func constantTimeComparisonCallsANullBufferUnequal() {
        let bytes: [UInt8] = [1, 2, 3]
        #expect(mw_ct_equal(nil, bytes, 3) == 0)
        #expect(mw_ct_equal(bytes, nil, 3) == 0)
        #expect(mw_ct_equal(nil, nil, 0) == 1)
        #expect(mw_ct_equal(bytes, bytes, 3) == 1)
    }
}
