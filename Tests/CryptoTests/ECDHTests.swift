import MailwakeCrypto
import TestSupport
import Testing

@Suite("ECDH P-256")
struct ECDHTests {
    @Test func bothSidesDeriveTheSameSecret() throws {
        let a = try P256.KeyAgreement.PrivateKey(), b = try P256.KeyAgreement.PrivateKey()
        let ab = try a.sharedSecretFromKeyAgreement(with: b.publicKey).rawBytesForTesting
        let ba = try b.sharedSecretFromKeyAgreement(with: a.publicKey).rawBytesForTesting
        #expect(ab == ba)
        #expect(ab.count == 32)
    }

    @Test func sharedSecretMatchesRFC5903() throws {
        // RFC 5903 §8.1: the shared secret is the x-coordinate of the shared point.
        let i = try P256.KeyAgreement.PrivateKey(rawRepresentation: Hex.decode("c88f01f510d9ac3f70a292daa2316de544e9aab8afe84049c62a9c57" +
                                                                               "862d1433"))
        let r = try P256.KeyAgreement.PublicKey(x963Representation: Hex.decode(
            "04d12dfb5289c8d4f81208b70270398c342296970a0bccb74c736fc7554494bf63"
            + "56fbf3ca366cc23e8157854c13c58d6aac23f046ada30f8353e74f33039872ab"))
        let secret = try i.sharedSecretFromKeyAgreement(with: r).rawBytesForTesting
        #expect(Hex.encode(secret) == "d6840f6b42f6edafd13116e0e12565202fef8e9ece7dce03812464d04b9442de")
    }

    @Test func hkdfFromTheSharedSecretEqualsHKDFOfItsBytes() throws {
        let a = try P256.KeyAgreement.PrivateKey(), b = try P256.KeyAgreement.PrivateKey()
        let shared = try a.sharedSecretFromKeyAgreement(with: b.publicKey)
        let salt = try SecureRandom.bytes(32), info = Array("info".utf8)
        let k1 = try shared.hkdfDerivedSymmetricKey(salt: salt, sharedInfo: info, outputByteCount: 32)
        let k2 = try HKDF.deriveKey(inputKeyMaterial: shared.rawBytesForTesting, salt: salt, info: info, outputByteCount: 32)
        #expect(k1.rawBytes == k2.rawBytes)
    }
}
