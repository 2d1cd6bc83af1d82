import Foundation
import MailwakeBenchKit
import MailwakeCore
import MailwakeHTTPServer
import MailwakeHTTPTypes
import TestSupport
import Testing

/// The benches' lean load client against our server over real TLS: every body posted once, every answer's status kept.
@Suite("Lean load client over TLS", .awaitedCleanup)
struct LeanLoadTests {
    /// A server on `certs` that answers 202 to each body (500 to one holding "fail"), recording the bodies it received.
    static func server(_ certs: TestCertificates, received: Locked<[String]>) throws -> ServerFixture {
        var router = Router()
        router.post("/v1/envelopes") { request, _ in
            let body = String(decoding: request.body, as: UTF8.self)
            received.withLock { $0.append(body) }
            guard request.headers["Content-Type"] == "application/json" else { return HTTPResponse(status: .unsupportedMediaType) }
            return body.contains("fail") ? HTTPResponse(status: .internalServerError) : try .json(["accepted": true], status: .accepted)
        }
        return try ServerFixture.start(router, tls: certs)
    }

    static func bodies(_ count: Int) -> [[UInt8]] { (0..<count).map { Array(#"{"i":\#($0)}"#.utf8) } }

    /// Posts `bodies` to a fresh server from `connections` connections, in a closed loop or, with `schedule`, an open one;
    /// the answers, the bodies the server received, and when (wall clock, ms) the client said it was connected.
    static func post(_ bodies: [[UInt8]], connections: Int, schedule: ArrivalSchedule? = nil) async throws
        -> (answers: [LeanLoad.Answer], received: [String], connectedMS: [Double]) {
        let certs = try await TestCertificates.generate()
        defer { certs.remove() }
        let received = Locked<[String]>([])
        let connected = Locked<[Double]>([])
        let f = try server(certs, received: received)
        let answers = try await OwnThread.run {
            let mark = { connected.withLock { $0.append(BenchSystem.nowMS()) } }
            if let schedule {
                return try LeanLoad.openLoop(ip: "127.0.0.1", port: Int(f.port), hostHeader: "127.0.0.1:\(f.port)", path: "/v1/envelopes",
                                             caFile: certs.caCertificate.path, connections: connections, bodies: bodies,
                                             schedule: schedule, connected: mark)
            }
            return try LeanLoad.closedLoop(ip: "127.0.0.1", port: Int(f.port), hostHeader: "127.0.0.1:\(f.port)", path: "/v1/envelopes",
                                           caFile: certs.caCertificate.path, connections: connections, bodies: bodies, connected: mark)
        }
        return (answers, received.withLock { $0 }, connected.withLock { $0 })
    }

    @Test func everyBodyIsPostedOnceAndEachAnswerIsKeptAtItsIndex() async throws {
        let bodies = Self.bodies(2_000)
        let before = BenchSystem.nowMS()
        let (answers, received, _) = try await Self.post(bodies, connections: 8)
        #expect(answers.count == bodies.count)
        #expect(answers.allSatisfy { $0.status == 202 })
        #expect(received.sorted() == bodies.map { String(decoding: $0, as: UTF8.self) }.sorted())
        // Bodies go out in order, each when a connection is free.
        #expect(answers.first!.sentMS >= before && zip(answers, answers.dropFirst()).allSatisfy { $0.sentMS <= $1.sentMS })
    }

    @Test func anAnswerOtherThan202KeepsItsStatusAndTheRunGoesOn() async throws {
        var bodies = Self.bodies(50)
        bodies[7] = Array(#"{"fail":7}"#.utf8)
        let (answers, received, _) = try await Self.post(bodies, connections: 3)
        #expect(answers[7].status == 500)
        #expect(answers.enumerated().allSatisfy { $0.offset == 7 || $0.element.status == 202 })
        #expect(received.count == 50)
    }

    @Test func connectedIsCalledOnceBeforeTheFirstBodyIsSent() async throws {
        let (answers, _, connected) = try await Self.post(Self.bodies(20), connections: 4)
        #expect(connected.count == 1)
        #expect(connected[0] <= answers.map(\.sentMS).min()!)
    }

    @Test func anOpenLoopSendsNoBodyBeforeItIsDueAndEachAnswerAfterItsRequest() async throws {
        // 40 bodies at 400/s: due every 2.5 ms over 100 ms.
        let schedule = ArrivalSchedule(count: 40, rate: 400, pattern: .even)
        let (answers, received, connected) = try await Self.post(Self.bodies(40), connections: 4, schedule: schedule)
        #expect(received.count == 40)
        #expect(answers.allSatisfy { $0.status == 202 && $0.answeredMS >= $0.sentMS })
        // The schedule counts from just after `connected`: no body is written before its time (0.01 ms for rounding).
        for (answer, due) in zip(answers, schedule.offsetsNS) {
            #expect(answer.sentMS >= connected[0] + Double(due) / 1e6 - 0.01)
        }
    }

    @Test func anOpenLoopWhoseConnectionsAreAllBusySendsTheOverdueBodyWhenOneIsFree() async throws {
        // Everything due at once on one connection: each body waits for the answer before it.
        let schedule = ArrivalSchedule(count: 10, rate: 1_000_000_000, pattern: .even)
        let (answers, received, _) = try await Self.post(Self.bodies(10), connections: 1, schedule: schedule)
        #expect(received == Self.bodies(10).map { String(decoding: $0, as: UTF8.self) })
        #expect(zip(answers, answers.dropFirst()).allSatisfy { $1.sentMS >= $0.answeredMS })
    }

    @Test func anOpenLoopRefusesAScheduleWithoutOneTimePerBody() async throws {
        let certs = try await TestCertificates.generate()
        defer { certs.remove() }
        #expect(throws: BenchError.self) {
            try LeanLoad.openLoop(ip: "127.0.0.1", port: 1, hostHeader: "localhost", path: "/", caFile: certs.caCertificate.path,
                                  connections: 1, bodies: Self.bodies(3), schedule: ArrivalSchedule(count: 2, rate: 10, pattern: .even))
        }
    }

    @Test func aServerWhoseCertificateDoesNotChainToTheCAIsRefusedBeforeAnyBodyIsSent() async throws {
        let certs = try await TestCertificates.generate()
        let other = try await TestCertificates.generate()
        defer { certs.remove(); other.remove() }
        let received = Locked<[String]>([])
        let f = try Self.server(certs, received: received)
        let refusal = await OwnThread.run { () -> String? in
            do {
                _ = try LeanLoad.closedLoop(ip: "127.0.0.1", port: Int(f.port), hostHeader: "localhost", path: "/v1/envelopes",
                                            caFile: other.caCertificate.path, connections: 2, bodies: Self.bodies(5))
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal?.contains("TLS handshake") == true)
        #expect(received.withLock { $0.isEmpty })
    }

    @Test func aClosedPortIsReportedAsAFailedConnection() async throws {
        let certs = try await TestCertificates.generate()
        defer { certs.remove() }
        let port = try PortAllocator.freePort()
        let refusal = await OwnThread.run { () -> String? in
            do {
                _ = try LeanLoad.closedLoop(ip: "127.0.0.1", port: Int(port), hostHeader: "localhost", path: "/",
                                            caFile: certs.caCertificate.path, connections: 1, bodies: Self.bodies(1))
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal?.contains("connect") == true)
    }
}
