import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// Against nghttpd, a real HTTP/2 server over TLS.
@Suite struct HTTP2Tests {
    @Test func getOverHTTP2TrustingTheTestCA() async throws {
        try await withCertificates { certificates in
            let server = try await NGHTTPDServer.start(certificates: certificates)
            defer { server.stop() }
            try server.addFile("hello.txt", Array("hello over h2\n".utf8))
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }

            let response = try await client.execute(.init(url: server.baseURL + "/hello.txt"))
            #expect(response.status == .ok)
            #expect(response.version == .http2)
            #expect(response.text == "hello over h2\n")
            #expect(response.headers["content-length"] == "14")
            #expect(response.transfer.newConnections == 1)

            let missing = try await client.execute(.init(url: server.baseURL + "/missing"))
            #expect(missing.status == .notFound)
            #expect(missing.transfer.newConnections == 0, "second request reuses the connection")
        }
    }

    @Test func concurrentRequestsShareOneConnection() async throws {
        try await withCertificates { certificates in
            let server = try await NGHTTPDServer.start(certificates: certificates)
            defer { server.stop() }
            let count = 64
            for i in 0..<count { try server.addFile("f\(i)", Array("file \(i)".utf8)) }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            let base = server.baseURL

            let results = try await withThrowingTaskGroup(of: (Int, HTTPClient.Response).self) { group in
                for i in 0..<count {
                    group.addTask { (i, try await client.execute(.init(url: base + "/f\(i)"))) }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(results.count == count)
            for (i, response) in results {
                #expect(response.status == .ok && response.text == "file \(i)" && response.version == .http2)
            }
            // One TCP connection opened, and every stream used it (same local port).
            #expect(results.values.map(\.transfer.newConnections).reduce(0, +) == 1)
            #expect(Set(results.values.map(\.transfer.localPort)).count == 1)
        }
    }

    @Test func pinnedPublicKeyMatchSucceedsAndMismatchFails() async throws {
        try await withCertificates { certificates in
            let server = try await NGHTTPDServer.start(certificates: certificates)
            defer { server.stop() }
            try server.addFile("index.html", Array("pinned".utf8))
            let other = try await runOffPool { try TestCertificates.make() }
            defer { other.remove() }

            let matching = try HTTPClient(configuration: .trusting(certificates) { $0.pinnedPublicKeys = [other.serverPin,
                certificates.serverPin] })
            defer { matching.shutdown() }
            let ok = try await matching.execute(.init(url: server.baseURL + "/index.html"))
            #expect(ok.status == .ok && ok.text == "pinned")

            let fromBytes = HTTPClient.Configuration.pin(spkiSHA256: certificates.serverSPKISHA256)
            #expect(fromBytes == certificates.serverPin)

            let mismatching = try HTTPClient(configuration: .trusting(certificates) { $0.pinnedPublicKeys = [other.serverPin] })
            defer { mismatching.shutdown() }
            let error = await thrownError { try await mismatching.execute(.init(url: server.baseURL + "/index.html")) } as? HTTPClientError
            #expect(error?.code == .pinMismatch)
            #expect(error?.isRetryable == false)
        }
    }

    @Test func untrustedCertificateFailsWithTLS() async throws {
        try await withCertificates { certificates in
            let server = try await NGHTTPDServer.start(certificates: certificates)
            defer { server.stop() }
            let other = try await runOffPool { try TestCertificates.make() }
            defer { other.remove() }

            let wrongCA = try HTTPClient(configuration: .trusting(other))
            defer { wrongCA.shutdown() }
            #expect(await clientErrorCode { try await wrongCA.execute(.init(url: server.baseURL + "/")) } == .tls)

            let systemStore = try HTTPClient()
            defer { systemStore.shutdown() }
            #expect(await clientErrorCode { try await systemStore.execute(.init(url: server.baseURL + "/")) } == .tls)
        }
    }

    @Test func responseSizeLimit() async throws {
        try await withCertificates { certificates in
            let server = try await NGHTTPDServer.start(certificates: certificates)
            defer { server.stop() }
            let mebibyte = 1 << 20
            try server.addFile("exact", [UInt8](repeating: 0x61, count: mebibyte))
            try server.addFile("over", [UInt8](repeating: 0x62, count: mebibyte + 1))
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }

            let exact = try await client.execute(.init(url: server.baseURL + "/exact"))
            #expect(exact.body.count == mebibyte)
            #expect(await clientErrorCode { try await client.execute(.init(url: server.baseURL + "/over")) } == .responseTooLarge)
            #expect(await clientErrorCode { try await client.execute(.init(url: server.baseURL + "/exact",
                                                                           maxResponseBytes: 1000)) } == .responseTooLarge)
            let raised = try await client.execute(.init(url: server.baseURL + "/over", maxResponseBytes: 2 * mebibyte))
            #expect(raised.body.count == mebibyte + 1)
            // HEAD: the Content-Length describes a body that never comes.
            let head = try await client.execute(.init(method: .head, url: server.baseURL + "/over"))
            #expect(head.status == .ok && head.body.isEmpty && head.headers["content-length"] == String(mebibyte + 1))
        }
    }

    @Test func bodyIsUploadedIntact() async throws {
        try await withCertificates { certificates in
            let server = try await NGHTTPDServer.start(certificates: certificates, echoUpload: true)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            // Every byte value, NULs included, and larger than one HTTP/2 frame.
            let body = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
            let response = try await client.execute(.init(method: .post, url: server.baseURL + "/upload", body: body))
            #expect(response.status == .ok)
            #expect(response.body == body)
        }
    }

    @Test func apnsStyleHeadersReachTheServer() async throws {
        try await withCertificates { certificates in
            let server = try await NGHTTPDServer.start(certificates: certificates, echoUpload: true, verbose: true)
            defer { server.stop() }
            let client = try HTTPClient(configuration: .trusting(certificates))
            defer { client.shutdown() }
            let token = String(repeating: "ab", count: 32)
            let headers: HTTPHeaders = [
                "apns-topic": "app.mailwake.ios", "apns-push-type": "alert", "apns-id": "0E8B1A5C-1B2D-4E3F-9A8B-7C6D5E4F3A2B",
                "apns-priority": "10", "apns-expiration": "0", "authorization": "bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
                "content-type": "application/json",
            ]
            let body = Array(#"{"aps":{"mutable-content":1,"alert":{"title":"x"}},"ct":"AAAA"}"#.utf8)
            let response = try await client.execute(.init(method: .post, url: server.baseURL + "/3/device/\(token)", headers: headers,
                                                          body: body))
            #expect(response.status == .ok && response.body == body)
            let log = server.logText()
            for (name, value) in headers.fields {
                #expect(log.contains("\(name): \(value)"), "nghttpd received \(name)")
            }
            #expect(log.contains(":path: /3/device/\(token)"))
            #expect(log.contains("content-length: \(body.count)"))
        }
    }
}
