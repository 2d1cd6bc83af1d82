@testable import MailwakeCrypto
import TestSupport
import Testing

@Suite("Crypto: secret bytes in memory")
struct SecretMemoryTests {
    @Test func aKeyMadeFromAnArrayCopiesItAndLeavesTheCallersArrayAsItWas() {
        let original: [UInt8] = (0..<32).map { UInt8($0 + 1) }
        var callers = original
        let observer = SecureMemoryObserver()
        SecureMemoryObserver.$current.withValue(observer) {
            let key = SymmetricKey(bytes: callers)
            #expect(key.byteCount == 32)
            #expect(key.withUnsafeBytes { Array($0) } == original)
        }
        #expect(callers == original, "init(bytes:) says it leaves the caller's array as it is")
        callers[0] = 0  // the caller's copy is the caller's to wipe
        #expect(observer.wipes.map(\.before) == [original], "the key's own copy is wiped when the key goes")
        #expect(observer.wipes.allSatisfy { $0.zeroAfter })
    }

    @Test func aKeyMadeByWipingZeroesTheCallersArray() {
        let original: [UInt8] = (0..<32).map { UInt8(200 - $0) }
        var callers = original
        let observer = SecureMemoryObserver()
        SecureMemoryObserver.$current.withValue(observer) {
            let key = SymmetricKey(wiping: &callers)
            #expect(key.withUnsafeBytes { Array($0) } == original)
        }
        #expect(callers == [UInt8](repeating: 0, count: 32))
        #expect(observer.wipes.map(\.before) == [original])
        #expect(observer.wipes.allSatisfy { $0.zeroAfter })
    }

    @Test func aKeyFilledInPlaceIsNeverCopiedAndIsWipedWhenFillingFails() throws {
        struct Boom: Error {}
        let observer = SecureMemoryObserver()
        try SecureMemoryObserver.$current.withValue(observer) {
            let key = try SymmetricKey(byteCount: 4) { (buffer) throws(Boom) in
                for i in 0..<4 { buffer[i] = UInt8(i + 7) }
            }
            #expect(key.withUnsafeBytes { Array($0) } == [7, 8, 9, 10])
            #expect(throws: Boom.self) { _ = try SymmetricKey(byteCount: 4) { (buffer) throws(Boom) in buffer[0] = 1; throw Boom() } }
        }
        #expect(observer.copies.isEmpty)
        #expect(observer.wipes.count == 1, "only the key that was made reaches its deinit; the failed fill is wiped where it fails")
        #expect(observer.wipes.first?.before == [7, 8, 9, 10])
    }

    @Test func aSelfSignedCertificateBeyondTheYear9999IsAnErrorNotABrokenCertificate() throws {
        #expect(throws: CryptoError.self) {
            _ = try ServerCertificate.selfSigned(commonName: "outpost", subjectAltNames: ["127.0.0.1"], days: 3_000_000)
        }
        let (certificate, _) = try ServerCertificate.selfSigned(commonName: "outpost", subjectAltNames: ["127.0.0.1"], days: 30)
        #expect(try certificate.notAfter() > 0)
    }
}
