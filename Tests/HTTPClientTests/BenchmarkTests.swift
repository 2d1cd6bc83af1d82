import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// Client HTTP/2 request rate over one connection, against nghttpd on
/// loopback. Informative, never asserted on time; runs only with
/// MAILWAKE_HTTP_CLIENT_BENCH=<seconds> (e.g. `MAILWAKE_HTTP_CLIENT_BENCH=3
/// swift test -c release --filter HTTPClientBenchmark`). Prints one JSON line
/// per workload.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["MAILWAKE_HTTP_CLIENT_BENCH"] != nil))
struct HTTPClientBenchmark {
    static var seconds: Double { Double(ProcessInfo.processInfo.environment["MAILWAKE_HTTP_CLIENT_BENCH"] ?? "") ?? 3 }

    @Test(arguments: [1, 10, 100])
    func getSmallFile(concurrency: Int) async throws {
        try await run(name: "get_100B", concurrency: concurrency) { base in .init(url: base + "/small") }
    }

    @Test(arguments: [100])
    func apnsLikePost(concurrency: Int) async throws {
        let body = [UInt8](repeating: 0x41, count: 512)
        let headers: HTTPHeaders = [
            "authorization": "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyMyJ9.eyJpc3MiOiJURUFNIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2lnbmF0dXJl",
            "apns-topic": "app.mailwake.ios", "apns-push-type": "alert", "apns-priority": "10", "content-type": "application/json",
        ]
        // nghttpd answers a POST to a static file with the file (100 bytes),
        // as APNs answers with a short status: no echo (its --echo-upload
        // spools each body to a temporary file, which would measure the disk).
        try await run(name: "post_512B_apns_headers", concurrency: concurrency) { base in
            var request = HTTPClient.Request(method: .post, url: base + "/small", headers: headers, body: body)
            request.headers.add("apns-id", UUID().uuidString)
            return request
        }
    }

    private func run(name: String, concurrency: Int, request: @escaping @Sendable (String) -> HTTPClient.Request) async throws {
        try await withCertificates { certificates in
            let server = try await NGHTTPDServer.start(certificates: certificates)
            defer { server.stop() }
            try server.addFile("small", [UInt8](repeating: 0x61, count: 100))
            let client = try HTTPClient(configuration: .trusting(certificates) { $0.maxConnectionsPerHost = 1 })
            defer { client.shutdown() }
            let base = server.baseURL
            _ = try await client.execute(request(base)) // connect first
            let deadline = ContinuousClock.now + .seconds(Self.seconds)
            let start = ContinuousClock.now
            let (count, newConnections, ports) = try await withThrowingTaskGroup(of: (Int, Int, Set<Int>).self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        var n = 0, connections = 0
                        var ports = Set<Int>()
                        while ContinuousClock.now < deadline {
                            let response = try await client.execute(request(base))
                            precondition(response.status == .ok && response.version == .http2)
                            n += 1
                            connections += response.transfer.newConnections
                            ports.insert(response.transfer.localPort)
                        }
                        return (n, connections, ports)
                    }
                }
                return try await group.reduce(into: (0, 0, Set<Int>())) { $0.0 += $1.0; $0.1 += $1.1; $0.2.formUnion($1.2) }
            }
            let elapsed = ContinuousClock.now - start
            let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(#"{"workload":"\#(name)","concurrency":\#(concurrency),"requests":\#(count),"# +
                  #""seconds":\#(String(format: "%.2f", secs)),"requests_per_second":\#(Int(Double(count) / secs)),"# +
                  #""new_connections":\#(newConnections),"connections_used":\#(ports.count)}"#)
            #expect(newConnections == 0 && ports.count == 1)
        }
    }
}
