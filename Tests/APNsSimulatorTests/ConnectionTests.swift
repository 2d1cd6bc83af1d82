import APNsSimulatorCore
import Foundation
import MailwakeHTTPClient
import Synchronization
import TestSupport
import Testing

/// Latency, GOAWAY and the stream limit: what the relay's HTTP/2 client sees.
@Suite(.awaitedCleanup) struct ConnectionTests {
    @Test func latencyOnOneStreamDoesNotDelayAnotherOnTheSameConnection() async throws {
        try await withSimulator { sim, client in
            let slowToken = deviceToken(1), fastToken = deviceToken(2)
            try await sim.setBehaviour(token: slowToken, status: 200, latencyMS: 1500)
            var fast = Push(), slow = Push()
            fast.token = fastToken
            slow.token = slowToken
            _ = try await sim.send(fast, with: client) // the connection is up before the race

            let finished = Mutex<[String]>([])
            async let slowResponse = { () async throws -> HTTPClient.Response in
                let r = try await sim.send(slow, with: client)
                finished.withLock { $0.append("slow") }
                return r
            }()
            try await Task.sleep(for: .milliseconds(100))
            let fastResponse = try await sim.send(fast, with: client)
            finished.withLock { $0.append("fast") }
            let slowDone = try await slowResponse

            #expect(finished.withLock { $0 } == ["fast", "slow"])
            #expect(fastResponse.status == .ok && slowDone.status == .ok)
            #expect(fastResponse.transfer.localPort == slowDone.transfer.localPort, "both streams used one connection")
            #expect(slowDone.transfer.totalSeconds >= 1.4)
        }
    }

    @Test func globalLatencyHoldsEveryAnswerBack() async throws {
        try await withSimulator(options: [.latencyMS(300)]) { sim, client in
            let response = try await sim.send(Push(), with: client)
            #expect(response.status == .ok && response.transfer.totalSeconds >= 0.29)
            try await sim.configure(latencyMS: 0)
            let prompt = try await sim.send(Push(), with: client)
            #expect(prompt.status == .ok)
        }
    }

    @Test func goawayAfterNStreamsMovesTheClientToANewConnection() async throws {
        try await withSimulator { sim, client in
            try await sim.configure(goawayAfter: 2)
            #expect(try await sim.send(Push(), with: client).status.code == 200)
            #expect(try await sim.send(Push(), with: client).status.code == 200)
            // The connection went away after its second stream: the next
            // request works, on another connection (a stream that raced the
            // GOAWAY may be refused as retryable first).
            let third = try await sendRetrying(Push(), sim: sim, client: client)
            #expect(third.status == .ok)
            let connections = try await sim.deliveries().filter { $0.status == 200 }.map(\.connection)
            #expect(connections.count == 3)
            #expect(connections[0] == connections[1])
            #expect(connections[2] != connections[0])
        }
    }

    @Test func streamsAboveTheGoawayAreRefusedNeverProcessed() async throws {
        try await withSimulator { sim, client in
            _ = try await sim.send(Push(), with: client)
            try await sim.configure(latencyMS: 200, goawayAfter: 3)
            let outcomes = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        do {
                            return try await sim.send(Push(), with: client).status.code
                        } catch let error as HTTPClientError where error.isRetryable {
                            return nil
                        }
                    }
                }
                return try await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            let answered = outcomes.compactMap { $0 }
            #expect(answered.allSatisfy { $0 == 200 })
            // Every answer the client got is one recorded request, and nothing
            // the client saw refused (and may retry) was processed.
            let recorded = try await sim.deliveries()
            #expect(recorded.count == answered.count + 1)
            let perConnection = Dictionary(grouping: recorded, by: \.connection).values.map(\.count)
            #expect(perConnection.allSatisfy { $0 <= 3 }, "no connection served more than goaway_after streams")
            #expect(try await sim.stats().connectionsAccepted >= 2)
        }
    }

    @Test func goawayOnRequestClosesTheConnectionGracefully() async throws {
        try await withSimulator { sim, client in
            #expect(try await sim.send(Push(), with: client).status.code == 200)
            let first = try #require(try await sim.deliveries().last?.connection)
            #expect(try await sim.goaway(connection: first) == 1)
            let next = try await sendRetrying(Push(), sim: sim, client: client)
            #expect(next.status == .ok)
            #expect(try await sim.deliveries().last?.connection != first)
        }
    }

    /// libcurl resets every stream it has finished with; nghttp2's
    /// rapid-reset guard would close the connection after about 1000 of
    /// those, APNs does not.
    @Test func aBusyConnectionOutlivesTheClientsStreamResets() async throws {
        try await withSimulator(options: [.keepDeliveries(10)]) { sim, client in
            let total = 2500, workers = 50
            try await withThrowingTaskGroup(of: Void.self) { group in
                for w in 0..<workers {
                    group.addTask {
                        for n in stride(from: w, to: total, by: workers) {
                            var push = Push()
                            push.token = deviceToken(n)
                            let response = try await sim.send(push, with: client)
                            precondition(response.status == .ok)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let stats = try await sim.stats()
            #expect(stats.count(status: 200) == total)
            #expect(stats.connections == 1)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nghttp")))
    func maxConcurrentStreamsIsAdvertisedAndChangesForNewConnections() async throws {
        try await withSimulator(options: [.maxConcurrentStreams(7)]) { sim, _ in
            #expect(try await announcedStreamLimit(sim) == 7)
            try await sim.configure(maxConcurrentStreams: 3)
            #expect(try await announcedStreamLimit(sim) == 3)
        }
    }

    @Test func manyConcurrentRequestsAllCompleteUnderALowStreamLimit() async throws {
        try await withSimulator(options: [.maxConcurrentStreams(4), .latencyMS(30)],
                                client: { $0.maxConcurrentStreams = 4; $0.maxConnectionsPerHost = 3 }) { sim, client in
            let count = 60
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for n in 0..<count {
                    group.addTask {
                        var push = Push()
                        push.token = deviceToken(n)
                        return try await sim.send(push, with: client).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == count && statuses.allSatisfy { $0 == 200 })
            let deliveries = try await sim.deliveries()
            #expect(Set(deliveries.compactMap(\.deviceToken)).count == count)
            #expect(Set(deliveries.map(\.connection)).count <= 3)
        }
    }

    /// The SETTINGS_MAX_CONCURRENT_STREAMS a new connection receives, read
    /// from `nghttp -v` (Debian's nghttp2-client).
    private func announcedStreamLimit(_ sim: APNsSimulatorProcess) async throws -> Int? {
        let output = try await Blocking.run {
            try ChildProcess.run("/usr/bin/nghttp", ["-nv", sim.url + "/_sim/stats"], directory: nil)
        }
        // The client's own SETTINGS are printed first ("send"); the server's follow "recv".
        guard let received = output.range(of: "recv SETTINGS frame"),
              let range = output.range(of: "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):", range: received.upperBound..<output.endIndex)
        else { return nil }
        return Int(output[range.upperBound...].prefix { $0.isNumber })
    }

    /// Sends, retrying a stream refused by a GOAWAY (what the relay does).
    private func sendRetrying(_ push: Push, sim: APNsSimulatorProcess, client: HTTPClient) async throws -> HTTPClient.Response {
        for _ in 0..<4 {
            do {
                return try await sim.send(push, with: client)
            } catch let error as HTTPClientError where error.isRetryable {
                continue
            }
        }
        return try await sim.send(push, with: client)
    }
}
