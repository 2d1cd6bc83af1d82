import Foundation
import MailwakeCrypto
import Testing

/// scrypt from OpenSSL, checked against RFC 7914 §12.
@Suite struct ScryptTests {
    @Test func theRFC7914VectorsMatch() throws {
        let key = try Scrypt.deriveKey(passphrase: Array("password".utf8), salt: Array("NaCl".utf8), logN: 10, r: 8, p: 16,
                                       outputByteCount: 64)
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(hex == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d" +
                       "8360cbdfa2cc0640")
        let empty = try Scrypt.deriveKey(passphrase: [], salt: [], logN: 4, r: 1, p: 1, outputByteCount: 64)
        #expect(empty.withUnsafeBytes { $0.prefix(8).map { String(format: "%02x", $0) }.joined() } == "77d6576238657b20")
    }

    @Test func outOfRangeParametersAreRefused() {
        #expect(throws: CryptoError.self) { _ = try Scrypt.deriveKey(passphrase: [1], salt: [2], logN: 0, r: 8, p: 1) }
        #expect(throws: CryptoError.self) { _ = try Scrypt.deriveKey(passphrase: [1], salt: [2], logN: 14, r: 0, p: 1) }
    }
}
