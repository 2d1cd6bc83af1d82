import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPServer
import MailwakeHTTPTypes
import TestSupport
import Testing

/// Our client against our server over real TLS on loopback: the path every
/// service-to-service call takes.
@Suite("HTTP server and client over TLS", .awaitedCleanup)
struct ServerClientTests {
    @Test func theClientTalksToTheServerOverPinnedTLS() async throws {
        let certs = try await TestCertificates.generate()
        defer { certs.remove() }
        let f = try ServerFixture.start(RoutingTests.router(), tls: certs)
        var c = HTTPClient.Configuration()
        c.caFile = certs.caCertificate.path
        c.pinnedPublicKeys = [certs.serverPin]
        let client = try HTTPClient(configuration: c)
        defer { client.shutdown() }
        let response = try await client.execute(.init(method: .post, url: "https://localhost:\(f.port)/v1/echo",
                                                       headers: ["Content-Type": "application/json"],
                                                       body: Array(#"{"name":"é","count":3}"#.utf8)))
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"count":3,"name":"é"}"#)
        #expect(response.headers["X-Request-Id"]?.count == 16)
    }

    @Test func aWrongPinIsRefusedBeforeAnyRequestIsSent() async throws {
        let certs = try await TestCertificates.generate()
        let other = try await TestCertificates.generate()
        defer { certs.remove(); other.remove() }
        let f = try ServerFixture.start(RoutingTests.router(), tls: certs)
        var c = HTTPClient.Configuration()
        c.caFile = certs.caCertificate.path
        c.pinnedPublicKeys = [other.serverPin]
        let client = try HTTPClient(configuration: c)
        defer { client.shutdown() }
        await #expect(throws: HTTPClientError.self) {
            _ = try await client.execute(.init(url: "https://localhost:\(f.port)/v1/things/1"))
        }
        #expect(!f.logs.lines.contains { $0.contains(#""msg":"request""#) }, "no request reached a handler")
    }

    @Test func manyConcurrentClientRequestsAreAllAnsweredOverKeepAlive() async throws {
        let certs = try await TestCertificates.generate()
        defer { certs.remove() }
        let f = try ServerFixture.start(RoutingTests.router(), tls: certs)
        var c = HTTPClient.Configuration()
        c.caFile = certs.caCertificate.path
        let client = try HTTPClient(configuration: c)
        defer { client.shutdown() }
        try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
            for i in 0..<100 {
                group.addTask { try await client.execute(.init(url: "https://localhost:\(f.port)/v1/things/\(i)")).status }
            }
            for try await status in group { #expect(status == .ok) }
        }
    }

    @Test func aKeepAliveTLSConnectionQuietPastABufferSweepIsAnsweredAgainOnIt() async throws {
        let certs = try await TestCertificates.generate()
        defer { certs.remove() }
        let f = try ServerFixture.start(RoutingTests.router(), tls: certs) { $0.engine = .epoll }
        var c = HTTPClient.Configuration()
        c.caFile = certs.caCertificate.path
        let client = try HTTPClient(configuration: c)
        defer { client.shutdown() }
        let first = try await client.execute(.init(url: "https://localhost:\(f.port)/v1/things/1"))
        // The engine gives the TLS record buffers of a connection quiet for 250 ms back at its next sweep (every
        // 250 ms); 800 ms is past at least two sweeps, and a longer wait on a busy machine only adds more.
        try await Task.sleep(for: .milliseconds(800))
        let second = try await client.execute(.init(url: "https://localhost:\(f.port)/v1/things/2"))
        #expect(first.status == .ok && second.status == .ok)
        #expect(second.transfer.newConnections == 0, "the second request went on the first one's connection")
        #expect(second.transfer.localPort == first.transfer.localPort)
        #expect(String(decoding: second.body, as: UTF8.self).hasPrefix("thing 2 "))
    }

    @Test func aRequestWhoseTLSRecordArrivesInTwoPartsAcrossABufferSweepIsAnswered() async throws {
        let certs = try await TestCertificates.generate()
        defer { certs.remove() }
        let f = try ServerFixture.start(RoutingTests.router(), tls: certs) { $0.engine = .epoll }
        let script = RepositoryPaths.file("Tests/Fixtures/http/split_tls_record.py").path
        let port = String(f.port)
        // Only the record's header for 800 ms: at least two sweeps see the connection quiet with a record half read.
        let statusLine = try await Blocking.run { try ChildProcess.run("python3", [script, "127.0.0.1", port, "0.8"], directory: nil) }
        #expect(statusLine.hasPrefix("HTTP/1.1 200"))
    }
}
