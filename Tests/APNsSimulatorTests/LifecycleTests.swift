import APNsSimulatorCore
import Foundation
import MailwakeHTTPClient
import TestSupport
import Testing

/// The process: start-up, the control API, shutdown.
@Suite(.awaitedCleanup) struct LifecycleTests {
    @Test func sigtermStopsTheSimulatorCleanly() async throws {
        let sim = try await APNsSimulatorProcess.start(topic: "net.mailwake.app")
        let client = try sim.makeClient()
        #expect(try await sim.send(Push(), with: client).status.code == 200)
        client.shutdown()
        let log = await sim.stopReturningLog()
        #expect(log.contains(#""msg":"all services stopped""#), "the service group ended cleanly (exit 0)")
        #expect(!log.contains(String(repeating: "ab", count: 32)), "device tokens are not logged")
    }

    @Test func theControlAPIReportsItsSettings() async throws {
        try await withSimulator(options: [.maxConcurrentStreams(50), .latencyMS(5)]) { sim, client in
            let response = try await client.execute(.init(url: sim.url + "/_sim/config"))
            let config = try #require(response.json)
            #expect(config["topic"] as? String == "net.mailwake.app")
            #expect(config["key_id"] as? String == "SIMKEY0001")
            #expect(config["team_id"] as? String == "SIMTEAM001")
            #expect(config["max_concurrent_streams"] as? Int == 50)
            #expect(config["latency_ms"] as? Int == 5)
            #expect(config["goaway_after"] as? Int == 0)
            #expect(config["token_max_age"] as? Int == 3600)
        }
    }

    @Test func unknownControlEndpointsAndBadBodiesAreClientErrors() async throws {
        try await withSimulator { sim, client in
            #expect(try await client.execute(.init(url: sim.url + "/_sim/nothing")).status.code == 404)
            #expect(try await client.execute(.init(method: .put, url: sim.url + "/_sim/config", body: [])).status.code == 405)
            let typo = try await client.execute(.init(method: .post, url: sim.url + "/_sim/config", body: Array(#"{"latency":5}"#.utf8)))
            #expect(typo.status.code == 400 && typo.text.contains("latency"))
        }
    }

    @Test func aClientWithoutH2IsRefusedDuringTheHandshake() async throws {
        try await withSimulator(client: { $0.httpVersion = .http1_1 }) { sim, client in
            let error = await #expect(throws: HTTPClientError.self) { try await client.execute(.init(url: sim.url + "/_sim/stats")) }
            #expect(error?.code == .tls || error?.code == .connectionClosed)
        }
    }
}
