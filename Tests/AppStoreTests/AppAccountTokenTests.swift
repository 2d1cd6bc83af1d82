import Foundation
import MailwakeAppStore
import MailwakeCrypto
import Testing

/// The appAccountToken derivation of docs/app-store.md, with its published vector.
@Suite struct AppAccountTokenTests {
    @Test func theDocumentedVectorHolds() {
        // docs/app-store.md: device_id "pGKh7qm2Vt8xJtA0pw1JTA".
        let token = AppAccountToken.of(deviceID: "pGKh7qm2Vt8xJtA0pw1JTA")
        #expect(token.uuidString.lowercased() == "3f9c7c20-8ab3-8aa6-8f2a-a39936d67c89")
        #expect(AppAccountToken.of(deviceID: "AAAAAAAAAAAAAAAAAAAAAA").uuidString.lowercased() == "160ee3f7-2f59-8717-be8d-88c0097e7c64")
    }

    @Test func itIsTheFirst16BytesOfTheLabelledDigestWithVersion8AndTheRFCVariant() {
        let id = "Zm9vYmFyYmF6cXV4cXV1eA"
        let label = Array("mailwake/app-account-token/v1".utf8)
        let digest = SHA256.hash([0, 0, 0, 29] + label + Array(id.utf8)).bytes
        let t = AppAccountToken.of(deviceID: id).uuid
        let bytes = [t.0, t.1, t.2, t.3, t.4, t.5, t.6, t.7, t.8, t.9, t.10, t.11, t.12, t.13, t.14, t.15]
        #expect(bytes[6] >> 4 == 8, "version 8")
        #expect(bytes[8] >> 6 == 0b10, "RFC 9562 variant")
        for i in 0..<16 where i != 6 && i != 8 { #expect(bytes[i] == digest[i]) }
        #expect(bytes[6] & 0x0F == digest[6] & 0x0F)
        #expect(bytes[8] & 0x3F == digest[8] & 0x3F)
        #expect(AppAccountToken.of(deviceID: id) != AppAccountToken.of(deviceID: "Zm9vYmFyYmF6cXV4cXV1eB"))
    }
}
