import Foundation
import MailwakeCrypto
import TestSupport
import Testing

/// P-256 public keys as DER and PEM `SubjectPublicKeyInfo`, the form
/// `openssl pkey -pubout` writes.
@Suite("P-256 SubjectPublicKeyInfo")
struct SubjectPublicKeyInfoTests {
    @Test func derAndPEMMatchWhatOpenSSLWrites() async throws {
        let key = try P256.Signing.PrivateKey()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-spki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("key.p8").path
        let pubPath = directory.appendingPathComponent("key.pub").path
        try key.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        _ = try await Blocking.run { try ChildProcess.run("/usr/bin/openssl", ["pkey", "-in", keyPath, "-pubout", "-out", pubPath],
                                                          directory: nil) }
        let openssl = try String(contentsOfFile: pubPath, encoding: .utf8)

        #expect(key.publicKey.pemRepresentation == openssl)
        #expect(try P256.Signing.PublicKey(pemRepresentation: openssl) == key.publicKey)
        #expect(try P256.Signing.PublicKey(derRepresentation: key.publicKey.derRepresentation) == key.publicKey)
        #expect(key.publicKey.derRepresentation.count == 91)
    }

    @Test func otherKeysAndTrailingBytesAreRefused() throws {
        let der = try P256.Signing.PrivateKey().publicKey.derRepresentation
        #expect(throws: CryptoError.self) { try P256.Signing.PublicKey(derRepresentation: der + [0]) }
        var otherCurve = der
        otherCurve[22] ^= 0x01 // the last byte of the prime256v1 OID
        #expect(throws: CryptoError.self) { try P256.Signing.PublicKey(derRepresentation: otherCurve) }
        var offCurve = der
        offCurve[90] ^= 0x01 // y no longer matches x
        #expect(throws: CryptoError.self) { try P256.Signing.PublicKey(derRepresentation: offCurve) }
    }
}
