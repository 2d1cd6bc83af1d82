import MailwakeCrypto
import TestSupport
import Testing

@Suite("Hashes, MAC, KDF, AES-GCM, random")
struct SymmetricTests {
    @Test func sha256OfABCMatchesFIPS180() {
        #expect(SHA256.hash(Array("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash([]).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func incrementalSHA256EqualsOneShot() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var h = SHA256()
        h.update(Array(data[..<333]))
        h.update(Array(data[333...]))
        #expect(h.finalize() == SHA256.hash(data))
    }

    @Test func hmacMatchesRFC4231() {
        // Test case 1 and 2.
        #expect(Hex.encode(HMACSHA256.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Hex.encode(HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func hmacValidationIsExact() {
        let key = Array("k".utf8), msg = Array("m".utf8)
        let code = HMACSHA256.authenticationCode(for: msg, key: key)
        #expect(HMACSHA256.isValidAuthenticationCode(code, for: msg, key: key))
        #expect(!HMACSHA256.isValidAuthenticationCode(code.flippingBit(5), for: msg, key: key))
        #expect(!HMACSHA256.isValidAuthenticationCode(Array(code.dropLast()), for: msg, key: key))
    }

    @Test func hkdfMatchesRFC5869TestCase1() throws {
        let okm = try HKDF.deriveKey(inputKeyMaterial: [UInt8](repeating: 0x0b, count: 22), salt: Hex.decode("000102030405060708090a0b0c"),
                                     info: Hex.decode("f0f1f2f3f4f5f6f7f8f9"), outputByteCount: 42)
        #expect(Hex.encode(okm.rawBytes) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func hkdfWithEmptySaltAndInfoMatchesRFC5869TestCase3() throws {
        let okm = try HKDF.deriveKey(inputKeyMaterial: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [], outputByteCount: 42)
        #expect(Hex.encode(okm.rawBytes) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test func hkdfRejectsBadLengths() {
        #expect(throws: CryptoError.self) { try HKDF.deriveKey(inputKeyMaterial: [1], salt: [], info: [], outputByteCount: 0) }
        #expect(throws: CryptoError.self) { try HKDF.deriveKey(inputKeyMaterial: [1], salt: [], info: [], outputByteCount: 8161) }
        #expect(throws: CryptoError.self) { try HKDF.deriveKey(inputKeyMaterial: [], salt: [], info: [], outputByteCount: 32) }
    }

    @Test func aesGCMMatchesTheGCMSpecTestCase16() throws {
        // McGrew & Viega, "The Galois/Counter Mode of Operation", test case 16 (AES-256, 60-byte text, 20-byte AAD).
        let key = SymmetricKey(bytes: Hex.decode("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
        let pt = Hex.decode("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0" +
                            "de657ba637b39")
        let aad = Hex.decode("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let iv = Hex.decode("cafebabefacedbaddecaf888")
        let sealed = try AESGCM.seal(pt, using: key, nonce: iv, authenticating: aad)
        #expect(Hex.encode(sealed) == "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c" +
                                      "5f61e6393ba7a0abcc9f662"
            + "76fc6ece0f4e1768cddf8853bb2d551b")
        #expect(try AESGCM.open(sealed, using: key, nonce: iv, authenticating: aad) == pt)
    }

    @Test func aesGCMDetectsEveryKindOfTampering() throws {
        let key = try SymmetricKey(randomByteCount: 32)
        let nonce = try SecureRandom.bytes(12)
        let aad = Array("context".utf8), pt = Array("{\"subject\":\"hi\"}".utf8)
        let sealed = try AESGCM.seal(pt, using: key, nonce: nonce, authenticating: aad)
        for bit in 0..<(sealed.count * 8) {
            #expect(throws: CryptoError(.authenticationFailure, "AES-GCM tag check failed"), "ct/tag bit \(bit)") {
                try AESGCM.open(sealed.flippingBit(bit), using: key, nonce: nonce, authenticating: aad)
            }
        }
        for bit in 0..<(aad.count * 8) {
            #expect(throws: CryptoError.self) { try AESGCM.open(sealed, using: key, nonce: nonce, authenticating: aad.flippingBit(bit)) }
        }
        for bit in 0..<96 {
            #expect(throws: CryptoError.self) { try AESGCM.open(sealed, using: key, nonce: nonce.flippingBit(bit), authenticating: aad) }
        }
        #expect(throws: CryptoError.self) { try AESGCM.open(sealed, using: SymmetricKey(randomByteCount: 32), nonce: nonce,
                                                            authenticating: aad) }
        #expect(throws: CryptoError.self) { try AESGCM.open(Array(sealed.dropLast()), using: key, nonce: nonce, authenticating: aad) }
        #expect(throws: CryptoError.self) { try AESGCM.open(sealed + [0], using: key, nonce: nonce, authenticating: aad) }
    }

    @Test func aesGCMSealsEmptyPlaintextToATagOnly() throws {
        let key = try SymmetricKey(randomByteCount: 32)
        let nonce = try SecureRandom.bytes(12)
        let sealed = try AESGCM.seal([], using: key, nonce: nonce, authenticating: [])
        #expect(sealed.count == 16)
        #expect(try AESGCM.open(sealed, using: key, nonce: nonce, authenticating: []) == [])
    }

    @Test func aesGCMRejectsWrongKeyAndNonceSizes() throws {
        #expect(throws: CryptoError.self) { try AESGCM.seal([1], using: SymmetricKey(bytes: [UInt8](repeating: 0, count: 16)),
                                                            nonce: [UInt8](repeating: 0, count: 12), authenticating: []) }
        #expect(throws: CryptoError.self) { try AESGCM.seal([1], using: SymmetricKey(bytes: [UInt8](repeating: 0, count: 32)),
                                                            nonce: [UInt8](repeating: 0, count: 16), authenticating: []) }
    }

    @Test func randomBytesAreFreshAndSized() throws {
        let a = try SecureRandom.bytes(32), b = try SecureRandom.bytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(try SecureRandom.bytes(0).isEmpty)
    }

    @Test func constantTimeEqualityComparesContentAndLength() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
    }
}

@Suite("AES-GCM edge cases")
struct AESGCMEdgeCaseTests {
    @Test func emptyPlaintextWithAADSealsAndOpens() throws {
        let key = try SymmetricKey(randomByteCount: 32)
        let nonce = try SecureRandom.bytes(12), aad = Array("context bytes".utf8)
        let sealed = try AESGCM.seal([], using: key, nonce: nonce, authenticating: aad)
        #expect(sealed.count == 16)
        #expect(try AESGCM.open(sealed, using: key, nonce: nonce, authenticating: aad) == [])
        #expect(throws: CryptoError.self) { try AESGCM.open(sealed, using: key, nonce: nonce, authenticating: []) }
    }
}
