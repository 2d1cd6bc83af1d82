@testable import MailwakeCrypto
import MailwakeProtocol
import TestSupport
import Testing

@Suite("Envelope sealing keeps no trace unless asked")
struct SealTraceTests {
    let f: Fixtures
    init() throws { f = try Fixtures() }

    @Test func aProductionSealCopiesNoSecretOutAndWipesTheSharedSecretAndKey() throws {
        let observer = SecureMemoryObserver()
        let envelope = try SecureMemoryObserver.$current.withValue(observer) {
            try f.sealer.seal(f.notification().jsonBytes, to: f.deviceAgreement.publicKey, context: try f.context())
        }
        #expect(observer.copies.isEmpty, "a seal without a trace copied \(observer.copies) secret bytes into arrays")
        // The ECDH secret and the AES key: both released, both wiped.
        #expect(observer.wipes.filter { $0.before.count == 32 }.count >= 2)
        #expect(observer.wipes.allSatisfy { $0.zeroAfter })
        #expect(try f.opener.open(envelope) == f.notification().jsonBytes)
    }

    @Test func aSealThatAsksForTheTraceGetsTheSecretsCopiedOut() throws {
        let observer = SecureMemoryObserver()
        let (_, trace) = try SecureMemoryObserver.$current.withValue(observer) {
            try f.sealer.seal([1, 2, 3], to: f.deviceAgreement.publicKey, context: try f.context(),
                              ephemeralKey: try P256.KeyAgreement.PrivateKey(),
                              salt: [UInt8](repeating: 1, count: 32), nonce: [UInt8](repeating: 2, count: 12))
        }
        #expect(trace.sharedSecret.count == 32 && trace.key.count == 32)
        #expect(observer.copies == [32, 32])
    }
}
