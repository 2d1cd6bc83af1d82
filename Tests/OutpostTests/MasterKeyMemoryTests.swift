import Foundation
@testable import MailwakeCrypto
@testable import OutpostService
import TestSupport
import Testing

@Suite("Outpost: the master key is held in wiped memory")
struct MasterKeyMemoryTests {
    @Test func theMasterKeyIsNeverCopiedIntoAnArrayAndIsWipedWhenItGoes() throws {
        let dir = StoreTests.scratch()
        try dir.create()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        _ = try SecretKey.create(at: dir.secretKeyPath)
        let onDisk = Array(try Data(contentsOf: URL(fileURLWithPath: dir.secretKeyPath)))
        #expect(onDisk.count == 32)
        let observer = SecureMemoryObserver()
        try SecureMemoryObserver.$current.withValue(observer) {
            let loaded = try SecretKey.load(from: dir.secretKeyPath)
            let box = SecretBox(secret: loaded)
            let sealed = try box.seal(Array("relay token".utf8), purpose: "setting:relay_token", context: "settings/relay_token")
            #expect(try box.open(sealed, purpose: "setting:relay_token", context: "settings/relay_token") == Array("relay token".utf8))
        }
        #expect(observer.copies.isEmpty, "the master key or a key derived from it was copied into an array: \(observer.copies)")
        let masterWipes = observer.wipes.filter { $0.before == onDisk }
        #expect(masterWipes.count == 1, "the loaded master key's buffer is wiped once, when the last copy goes")
        #expect(masterWipes.allSatisfy { $0.zeroAfter })
        #expect(observer.wipes.allSatisfy { $0.zeroAfter }, "every derived sealing key is wiped too")
    }
}
