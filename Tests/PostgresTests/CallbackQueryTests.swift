import Foundation
import MailwakeCore
import MailwakePostgres
import Synchronization
import TestSupport
import Testing

/// `query(_:then:)`: one statement without a task, answered on the connection's thread.
@Suite("Queries answered through a callback")
struct CallbackQueryTests {
    @Test func aQueryAnswersItsRowsThroughTheCallback() async throws {
        try await PG.withClient(poolSize: 2) { client async throws in
            let rows = try await client.queryThroughCallback("SELECT 41::int8 + 1")
            #expect(try rows.scalar(Int.self) == 42)
        }
    }

    @Test func aFailedStatementAnswersItsErrorAndGivesTheConnectionBack() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let error = await PG.error { try await client.queryThroughCallback("SELEC 1") }
            #expect(error?.sqlState == "42601", "the server's syntax error, as the awaited query reports it")
            #expect(try await client.query("SELECT 7::int8").scalar(Int.self) == 7, "the one connection is free again")
        }
    }

    @Test func aQueryStartedInACallbackRunsOnAnotherConnectionWhileTheCallbackRuns() async throws {
        try await PG.withClient(poolSize: 2) { client async throws in
            let nestedAnswered = Flag()
            let done = Flag()
            client.query("SELECT 1") { _ in
                // This callback keeps its connection until it returns (so a flush started here runs beside the answers
                // given here): the nested query takes the other one and answers meanwhile. Waiting here is fine: this is
                // the connection's own thread, not Swift's pool.
                client.query("SELECT 2") { _ in nestedAnswered.set() }
                let deadline = ContinuousClock.now + .seconds(60)
                while !nestedAnswered.isSet && ContinuousClock.now < deadline { usleep(1000) }
                done.set()
            }
            try await done.wait(timeout: .seconds(90))
            #expect(nestedAnswered.isSet, "the nested query was answered while the first callback still held its connection")
        }
    }

    @Test func withOneConnectionAQueryStartedInACallbackRunsWhenTheCallbackReturns() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let order = Mutex<[String]>([])
            let nested = Flag()
            client.query("SELECT 1") { _ in
                // The only connection is still this callback's: the nested query waits on a task until it returns.
                client.query("SELECT 2::int8") { result in
                    order.withLock { $0.append("nested answered \((try? result.get().scalar(Int.self)) ?? -1)") }
                    nested.set()
                }
                order.withLock { $0.append("first callback returned") }
            }
            try await nested.wait(timeout: .seconds(60))
            #expect(order.withLock { $0 } == ["first callback returned", "nested answered 2"])
        }
    }

    @Test func whenEveryConnectionIsLentTheQueryWaitsForOne() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let held = Flag()
            let release = Flag()
            let holder = Task {
                try await client.withConnection { _ in
                    held.set()
                    try await release.wait(timeout: .seconds(60))
                }
            }
            try await held.wait(timeout: .seconds(60))
            let answered = Flag()
            let value = Mutex<Int?>(nil)
            client.query("SELECT 3::int8") { result in
                value.withLock { $0 = try? result.get().scalar(Int.self) }
                answered.set()
            }
            #expect(!answered.isSet, "no connection was free")
            release.set()
            try await holder.value
            try await answered.wait(timeout: .seconds(60))
            #expect(value.withLock { $0 } == 3)
        }
    }

    @Test func aClosedPoolAnswersPoolClosed() async throws {
        let client = try await PG.client(poolSize: 1)
        await client.close()
        let error = await PG.error { try await client.queryThroughCallback("SELECT 1") }
        #expect(error?.code == .poolClosed)
    }
}

extension PostgresClient {
    /// `query(_:then:)`, awaited.
    fileprivate func queryThroughCallback(_ query: PostgresQuery) async throws -> PostgresRows {
        try await withCheckedThrowingContinuation { continuation in self.query(query) { continuation.resume(with: $0) } }
    }
}
