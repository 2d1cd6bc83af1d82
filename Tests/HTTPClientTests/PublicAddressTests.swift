import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// `publicAddressesOnly`: the guard against requests to private addresses.
@Suite struct PublicAddressTests {
    @Test(arguments: [
        ("127.0.0.1", false), ("10.1.2.3", false), ("172.16.0.1", false), ("172.31.255.255", false), ("192.168.1.1", false),
        ("169.254.169.254", false), ("100.64.0.1", false), ("0.0.0.0", false), ("224.0.0.1", false), ("255.255.255.255", false),
        ("::1", false), ("::", false), ("fe80::1", false), ("fd00::1", false), ("ff02::1", false), ("::ffff:127.0.0.1", false),
        ("::ffff:10.0.0.1", false), ("2001:db8::1", false), ("not an address", false),
        ("93.184.216.34", true), ("172.32.0.1", true), ("8.8.8.8", true), ("2606:4700::1111", true), ("::ffff:8.8.8.8", true),
    ])
    func addressesAreClassified(_ address: String, _ isPublic: Bool) {
        #expect(HTTPClient.isPublicAddress(address) == isPublic)
    }

    @Test func aLoopbackServerIsRefusedWhenOnlyPublicAddressesAreAllowed() async throws {
        try await withCertificates { certificates in
            let server = try await PythonHTTPTestServer.start(certificates: certificates)
            defer { server.stop() }
            let guarded = try HTTPClient(configuration: .trusting(certificates) { $0.publicAddressesOnly = true })
            defer { guarded.shutdown() }
            let error = await thrownError { try await guarded.execute(.init(url: """
                                                                                 https://localhost:\(server.port)/sta\
                                                                                 tus/200
                                                                                 """)) } as? HTTPClientError
            #expect(error?.code == .refusedAddress)
            #expect(error?.message.contains("127.0.0.1") == true || error?.message.contains("::1") == true)
            let open = try HTTPClient(configuration: .trusting(certificates))
            defer { open.shutdown() }
            #expect(try await open.execute(.init(url: "https://localhost:\(server.port)/status/200")).status.code == 200)
        }
    }
}
