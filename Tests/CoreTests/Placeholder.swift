import Foundation
import TestSupport
import Testing

@Test func testCertificatesAreMadeWithAPin() async throws {
    let certs = try await TestCertificates.generate()
    defer { certs.remove() }
    #expect(certs.serverPin.hasPrefix("sha256//"))
    #expect(certs.serverSPKISHA256.count == 32)
    #expect(FileManager.default.fileExists(atPath: certs.serverCertificate.path))
    #expect(try PortAllocator.freePort() > 0)
}
