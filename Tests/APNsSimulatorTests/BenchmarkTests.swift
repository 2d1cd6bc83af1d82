import APNsSimulatorCore
import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
import Synchronization
import TestSupport
import Testing

/// Valid alert pushes per second the simulator answers to the repo's HTTP/2
/// client on loopback. Informative, never asserted on time; runs only with
/// MAILWAKE_APNS_SIMULATOR_BENCH=<seconds>, e.g.
/// `MAILWAKE_APNS_SIMULATOR_BENCH=5 swift test -c release --filter APNsSimulatorBenchmark`.
/// Prints one JSON line per workload.
@Suite(.serialized, .awaitedCleanup, .enabled(if: ProcessInfo.processInfo.environment["MAILWAKE_APNS_SIMULATOR_BENCH"] != nil))
struct APNsSimulatorBenchmark {
    static var seconds: Double { Double(ProcessInfo.processInfo.environment["MAILWAKE_APNS_SIMULATOR_BENCH"] ?? "") ?? 3 }

    @Test(arguments: [(1, 100), (2, 200), (4, 400)])
    func validAlertPushes(connections: Int, concurrency: Int) async throws {
        let sim = try await APNsSimulatorProcess.start(topic: "net.mailwake.app", options: [.keepDeliveries(1000)])
        let client = try sim.makeClient {
            $0.maxConnectionsPerHost = connections
            $0.maxConcurrentStreams = concurrency / connections
        }
        defer { client.shutdown() }
        let authorization = try sim.authorization()
        let payload = Array((#"{"aps":{"alert":{"title":"New mail","body":"Open to view"},"mutable-content":1,"sound":"default"},"# +
                             #""mw":{"v":1,"ct":"\#(String(repeating: "A", count: 700))"}}"#).utf8)
        let url = sim.url + "/3/device/" + String(repeating: "ab", count: 32)
        let request: @Sendable () -> HTTPClient.Request = {
            HTTPClient.Request(method: .post, url: url, headers: [
                "authorization": authorization, "apns-topic": "net.mailwake.app", "apns-push-type": "alert", "apns-priority": "10",
                "apns-id": UUID().uuidString.lowercased(), "apns-expiration": "0", "content-type": "application/json",
            ], body: payload)
        }
        _ = try await client.execute(request())
        let deadline = ContinuousClock.now + .milliseconds(Int(Self.seconds * 1000))
        let start = ContinuousClock.now
        let counts = try await withThrowingTaskGroup(of: (Int, Set<Int>).self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var n = 0
                    var ports = Set<Int>()
                    while ContinuousClock.now < deadline {
                        let response = try await client.execute(request())
                        precondition(response.status == .ok, "status \(response.status)")
                        n += 1
                        ports.insert(response.transfer.localPort)
                    }
                    return (n, ports)
                }
            }
            return try await group.reduce(into: (0, Set<Int>())) { $0.0 += $1.0; $0.1.formUnion($1.1) }
        }
        let elapsed = ContinuousClock.now - start
        let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let stats = try await sim.stats()
        print(#"{"workload":"apns_alert_push","payload_bytes":\#(payload.count),"connections":\#(counts.1.count),"# +
              #""concurrency":\#(concurrency),"requests":\#(counts.0),"seconds":\#(String(format: "%.2f", secs)),"# +
              #""requests_per_second":\#(Int(Double(counts.0) / secs)),"token_verifications":\#(stats.providerTokenVerifications)}"#)
        #expect(stats.count(status: 200) == counts.0 + 1)
    }
}
