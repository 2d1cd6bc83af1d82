import MailwakeCrypto
import TestSupport
import Testing

@Suite("ECDSA P-256 SHA-256")
struct ECDSATests {
    let key: P256.Signing.PrivateKey
    let message: [UInt8] = Array("mailwake/envelope/v1 test message".utf8)

    init() throws { key = try P256.Signing.PrivateKey() }

    @Test func aSignatureVerifiesUnderItsKey() throws {
        let sig = try key.signature(for: message)
        #expect(sig.rawRepresentation.count == 64)
        #expect(key.publicKey.isValidSignature(sig, for: message))
    }

    @Test func signaturesAreRandomizedButAllVerify() throws {
        let a = try key.signature(for: message), b = try key.signature(for: message)
        #expect(a != b)
        #expect(key.publicKey.isValidSignature(b, for: message))
    }

    @Test func everyBitFlipOfTheSignatureFails() throws {
        let sig = try key.signature(for: message).rawRepresentation
        for bit in 0..<(64 * 8) {
            let bad = try P256.Signing.ECDSASignature(rawRepresentation: sig.flippingBit(bit))
            #expect(!key.publicKey.isValidSignature(bad, for: message), "bit \(bit)")
        }
    }

    @Test func aBitFlipInTheMessageFails() throws {
        let sig = try key.signature(for: message)
        for bit in stride(from: 0, to: message.count * 8, by: 7) {
            #expect(!key.publicKey.isValidSignature(sig, for: message.flippingBit(bit)))
        }
    }

    @Test func anotherKeyDoesNotVerify() throws {
        let sig = try key.signature(for: message)
        #expect(!(try P256.Signing.PrivateKey()).publicKey.isValidSignature(sig, for: message))
    }

    @Test(arguments: [0, 63, 65, 72])
    func rawSignaturesMustBe64Bytes(length: Int) {
        #expect(throws: CryptoError.self) { try P256.Signing.ECDSASignature(rawRepresentation: [UInt8](repeating: 1, count: length)) }
    }

    @Test func zeroRAndZeroSNeverVerify() throws {
        let sig = try key.signature(for: message).rawRepresentation
        let zeroR = try P256.Signing.ECDSASignature(rawRepresentation: [UInt8](repeating: 0, count: 32) + sig[32...])
        let zeroS = try P256.Signing.ECDSASignature(rawRepresentation: Array(sig[..<32]) + [UInt8](repeating: 0, count: 32))
        #expect(!key.publicKey.isValidSignature(zeroR, for: message))
        #expect(!key.publicKey.isValidSignature(zeroS, for: message))
    }

    @Test func derRoundTripKeepsTheSignature() throws {
        let sig = try key.signature(for: message)
        let der = sig.derRepresentation
        #expect(der[0] == 0x30)
        #expect(try P256.Signing.ECDSASignature(derRepresentation: der) == sig)
    }

    @Test func malformedDERIsRejected() throws {
        let der = try key.signature(for: message).derRepresentation
        #expect(throws: CryptoError.self) { try P256.Signing.ECDSASignature(derRepresentation: der + [0]) }
        #expect(throws: CryptoError.self) { try P256.Signing.ECDSASignature(derRepresentation: Array(der.dropLast())) }
        #expect(throws: CryptoError.self) { try P256.Signing.ECDSASignature(derRepresentation: []) }
    }

    @Test func digestSigningMatchesMessageSigning() throws {
        let digest = SHA256.hash(message)
        let sig = try key.signature(forDigest: digest)
        #expect(key.publicKey.isValidSignature(sig, for: message))
        #expect(key.publicKey.isValidSignature(try key.signature(for: message), forDigest: digest))
    }

    @Test func concurrentSigningWithOneKeyIsSafe() async throws {
        let key = self.key, message = self.message
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 {
                group.addTask { key.publicKey.isValidSignature(try key.signature(for: message), for: message) }
            }
            for try await ok in group { #expect(ok) }
        }
    }
}
