import MailwakeCrypto
import TestSupport
import Testing

@Suite("P-256 keys")
struct P256KeyTests {
    /// The group order n of P-256.
    static let order = Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    @Test func generatedKeysRoundTripThroughRawRepresentation() throws {
        let key = try P256.Signing.PrivateKey()
        let again = try P256.Signing.PrivateKey(rawRepresentation: key.rawRepresentation)
        #expect(again.publicKey == key.publicKey)
        #expect(key.rawRepresentation.count == 32)
        #expect(key.publicKey.x963Representation.count == 65)
        #expect(key.publicKey.x963Representation[0] == 0x04)
    }

    @Test func privateKeysRoundTripThroughPKCS8DERAndPEM() throws {
        let key = try P256.KeyAgreement.PrivateKey()
        let der = key.pkcs8DERRepresentation
        #expect(try P256.KeyAgreement.PrivateKey(pkcs8DERRepresentation: der).rawRepresentation == key.rawRepresentation)
        let pem = key.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(try P256.KeyAgreement.PrivateKey(pemRepresentation: pem).publicKey == key.publicKey)
        // Signing and agreement keys share the encoding.
        #expect(try P256.Signing.PrivateKey(pkcs8DERRepresentation: der).publicKey.x963Representation == key.publicKey.x963Representation)
    }

    @Test func publicKeyOfAKnownScalarMatchesRFC5903() throws {
        // RFC 5903 §8.1, initiator key pair.
        let key = try P256.KeyAgreement.PrivateKey(rawRepresentation: Hex.decode("c88f01f510d9ac3f70a292daa2316de544e9aab8afe84049c62a9c" +
                                                                                 "57862d1433"))
        #expect(Hex.encode(key.publicKey.x963Representation)
            == "04dad0b65394221cf9b051e1feca5787d098dfe637fc90b9ef945d0c3772581180"
            + "5271a0461cdb8252d61f1c456fa3e59ab1f45b33accf5f58389e0577b8990bb3")
    }

    @Test func rejectsAZeroScalar() {
        #expect(throws: CryptoError.self) { try P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32)) }
    }

    @Test func rejectsScalarsAtOrAboveTheGroupOrder() throws {
        #expect(throws: CryptoError.self) { try P256.Signing.PrivateKey(rawRepresentation: Self.order) }
        #expect(throws: CryptoError.self) { try P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0xFF, count: 32)) }
        var belowOrder = Self.order
        belowOrder[31] -= 1
        #expect(throws: Never.self) { try P256.Signing.PrivateKey(rawRepresentation: belowOrder) }
    }

    @Test(arguments: [0, 31, 33, 64])
    func rejectsRawPrivateKeysOfTheWrongLength(length: Int) {
        #expect(throws: CryptoError(.invalidLength, "a raw P-256 private key is 32 bytes, got \(length)")) {
            try P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: length))
        }
    }

    @Test func rejectsPointsNotOnTheCurve() throws {
        let good = try P256.Signing.PrivateKey().publicKey.x963Representation
        for bit in [8, 100, 263, 300, 519] {
            let bad = good.flippingBit(bit)
            #expect(throws: CryptoError.self, "bit \(bit)") { try P256.Signing.PublicKey(x963Representation: bad) }
            #expect(throws: CryptoError.self, "bit \(bit)") { try P256.KeyAgreement.PublicKey(x963Representation: bad) }
        }
    }

    @Test func rejectsCompressedHybridAndTruncatedEncodings() throws {
        let good = try P256.Signing.PrivateKey().publicKey.x963Representation
        var compressed = [UInt8](good[0..<33])
        compressed[0] = 0x02 | (good[64] & 1)
        var hybrid = good
        hybrid[0] = 0x06 | (good[64] & 1)
        var prefixed = good
        prefixed[0] = 0x05
        for bad in [compressed, hybrid, prefixed, Array(good.dropLast()), good + [0], [0x00], []] {
            #expect(throws: CryptoError.self) { try P256.Signing.PublicKey(x963Representation: bad) }
        }
    }

    @Test func rejectsCoordinatesOutsideTheField() {
        // x = p (the field prime) is not a canonical field element.
        let p = Hex.decode("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
        #expect(throws: CryptoError.self) { try P256.Signing.PublicKey(x963Representation: [0x04] + p + p) }
    }

    @Test func rejectsMalformedPKCS8() throws {
        let der = try P256.Signing.PrivateKey().pkcs8DERRepresentation
        #expect(throws: CryptoError.self) { try P256.Signing.PrivateKey(pkcs8DERRepresentation: Array(der.dropLast())) }
        #expect(throws: CryptoError.self) { try P256.Signing.PrivateKey(pkcs8DERRepresentation: der + [0]) }
        #expect(throws: CryptoError.self) { try P256.Signing.PrivateKey(pkcs8DERRepresentation: []) }
        #expect(throws: CryptoError.self) { try P256.Signing.PrivateKey(pemRepresentation: "-----BEGIN PRIVATE KEY-----\n!!!\n-----END " +
                                                                                           "PRIVATE KEY-----\n") }
        #expect(throws: CryptoError.self) { try P256.Signing.PrivateKey(pemRepresentation: "no pem here") }
    }

    @Test func errorMessagesNeverContainKeyMaterial() throws {
        let scalar = [UInt8](repeating: 0xFF, count: 32)
        do {
            _ = try P256.Signing.PrivateKey(rawRepresentation: scalar)
            Issue.record("an out-of-range scalar was accepted")
        } catch {
            #expect(!error.description.lowercased().contains("ffffffff"))
        }
    }
}
