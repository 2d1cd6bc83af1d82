@testable import MailwakeCrypto
import TestSupport
import Testing

@Suite("ECDSA P-256 with a precomputed key table")
struct PrecomputedPublicKeyTests {
    let key: P256.Signing.PrivateKey
    let table: P256.Signing.PrecomputedPublicKey
    let message: [UInt8] = Array("mailwake/envelope/v1 test message".utf8)

    init() throws {
        key = try P256.Signing.PrivateKey()
        table = try P256.Signing.PrecomputedPublicKey(key.publicKey)
    }

    @Test func aSignatureVerifiesWithTheKeysTable() throws {
        #expect(table.isValidSignature(try key.signature(for: message), for: message))
        #expect(table.publicKey == key.publicKey)
    }

    @Test func everyBitFlipOfTheSignatureFails() throws {
        let sig = try key.signature(for: message).rawRepresentation
        for bit in 0..<(64 * 8) {
            let bad = try P256.Signing.ECDSASignature(rawRepresentation: sig.flippingBit(bit))
            #expect(!table.isValidSignature(bad, for: message), "bit \(bit)")
        }
    }

    @Test func everyBitFlipOfTheMessageFails() throws {
        let sig = try key.signature(for: message)
        for bit in 0..<(message.count * 8) {
            #expect(!table.isValidSignature(sig, for: message.flippingBit(bit)), "bit \(bit)")
        }
    }

    @Test func anotherKeysTableDoesNotVerify() throws {
        let other = try P256.Signing.PrecomputedPublicKey(try P256.Signing.PrivateKey().publicKey)
        #expect(!other.isValidSignature(try key.signature(for: message), for: message))
    }

    @Test func theNegatedSignatureIsAcceptedAsTheKeyAloneAcceptsIt() throws {
        // (r, n - s) is valid too in plain ECDSA; both verifiers must agree on it.
        let sig = try key.signature(for: message).rawRepresentation
        let negated = try P256.Signing.ECDSASignature(rawRepresentation: Array(sig[..<32]) + Self.orderMinus(Array(sig[32...])))
        #expect(key.publicKey.isValidSignature(negated, for: message))
        #expect(table.isValidSignature(negated, for: message))
    }

    @Test func rAndSOutOfRangeNeverVerify() throws {
        let sig = try key.signature(for: message).rawRepresentation
        let r = Array(sig[..<32]), s = Array(sig[32...])
        let zero = [UInt8](repeating: 0, count: 32), ones = [UInt8](repeating: 0xFF, count: 32)
        for (rr, ss) in [(zero, s), (r, zero), (Self.order, s), (r, Self.order), (ones, s), (r, ones)] {
            let bad = try P256.Signing.ECDSASignature(rawRepresentation: rr + ss)
            #expect(!table.isValidSignature(bad, for: message))
            #expect(!key.publicKey.isValidSignature(bad, for: message))
        }
    }

    @Test func digestAndMessageVerifiesAgree() throws {
        let sig = try key.signature(for: message)
        #expect(table.isValidSignature(sig, forDigest: SHA256.hash(message)))
        #expect(!table.isValidSignature(sig, forDigest: SHA256.hash(message + [0])))
    }

    @Test func itAgreesWithTheKeyAloneOnRandomAndDamagedSignatures() throws {
        for round in 0..<200 {
            let message = try SecureRandom.bytes(1 + round % 97)
            var sig = try key.signature(for: message).rawRepresentation
            if round % 2 == 1 { sig = sig.flippingBit(round % 512) }
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: sig)
            let expected = key.publicKey.isValidSignature(signature, for: message)
            #expect(expected == (round % 2 == 0))
            #expect(table.isValidSignature(signature, for: message) == expected, "round \(round)")
        }
    }

    @Test func theInverseModuloTheOrderAgreesWithOpenSSLs() {
        Self.expectNoMismatches(rounds: 20_000, P256.Signing.PrecomputedPublicKey.orderInverseMismatches)
    }

    @Test func theProductsModuloTheOrderAndThePrimeAgreeWithOpenSSLs() {
        Self.expectNoMismatches(rounds: 20_000, P256.Signing.PrecomputedPublicKey.montgomeryMismatches)
    }

    @Test func sumsOfTwoMultiplesAgreeWithOpenSSLs() {
        Self.expectNoMismatches(rounds: 3_000, P256.Signing.PrecomputedPublicKey.multiplicationMismatches)
    }

    @Test func signaturesBuiltForEveryBranchOfTheFinalCheckGetTheExpectedAnswers() {
        Self.expectNoMismatches(rounds: 40, P256.Signing.PrecomputedPublicKey.verifyMismatches)
    }

    /// Runs one of the C checks from a random seed (named on failure) and expects no mismatch.
    static func expectNoMismatches(rounds: Int32, _ check: (_ seed: UInt64, _ rounds: Int32) -> Int32,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        let seed = UInt64.random(in: 1...UInt64.max)
        #expect(check(seed, rounds) == 0, "seed \(seed)", sourceLocation: sourceLocation)
    }

    @Test func concurrentVerifiesWithOneTableAreSafe() async throws {
        let table = self.table, message = self.message
        let good = try key.signature(for: message)
        let bad = try P256.Signing.ECDSASignature(rawRepresentation: good.rawRepresentation.flippingBit(9))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for i in 0..<50 {
                        let expectValid = (task + i) % 3 != 0
                        #expect(table.isValidSignature(expectValid ? good : bad, for: message) == expectValid)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func verifiesOnThreadsThatEndAgreeAndLeaveNothingBehind() async throws {
        // Each run is a thread of its own that ends after it; G's table is built once for all threads, and nothing
        // is kept per thread (the AddressSanitizer pass of scripts/test would report it as a leak).
        let table = self.table, message = self.message
        let good = try key.signature(for: message)
        let bad = try P256.Signing.ECDSASignature(rawRepresentation: good.rawRepresentation.flippingBit(300))
        for round in 0..<8 {
            let results = await Blocking.run { [table.isValidSignature(good, for: message), table.isValidSignature(bad, for: message)] }
            #expect(results == [true, false], "round \(round)")
        }
    }

    /// The P-256 group order n, big-endian.
    static let order = Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    /// n - v for a 32-byte big-endian v < n.
    static func orderMinus(_ v: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32), borrow = 0
        for i in stride(from: 31, through: 0, by: -1) {
            var d = Int(order[i]) - Int(v[i]) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 256 }
            out[i] = UInt8(d)
        }
        return out
    }
}
