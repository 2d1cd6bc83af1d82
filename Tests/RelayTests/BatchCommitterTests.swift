@testable import RelayService
import Synchronization
import TestSupport
import Testing

/// Group commit: every item gets its own outcome once, whether its submitter awaits it or gave a callback.
@Suite("Relay: group commit")
struct BatchCommitterTests {
    struct Refused: Error {}

    /// A flush that answers each item doubled, records the batch sizes, and fails batches holding a negative item.
    final class Recorder: Sendable {
        let batches = Mutex<[[Int]]>([])
        func flush(_ items: [Int]) async throws -> [Int] {
            batches.withLock { $0.append(items) }
            await Task.yield()
            if items.contains(where: { $0 < 0 }) { throw Refused() }
            return items.map { $0 * 2 }
        }
    }

    @Test func awaitedAndCallbackSubmissionsEachGetTheirOwnOutcomeOnce() async throws {
        let recorder = Recorder()
        let committer = BatchCommitter<Int, Int>(maxBatch: 8, maxConcurrentFlushes: 2) { try await recorder.flush($0) }
        let calls = Mutex<[Int: [Int]]>([:])
        let done = Flag()
        let callbacks = 200
        for i in 0..<callbacks {
            committer.submit(1000 + i) { result in
                let count = calls.withLock { c -> Int in
                    c[1000 + i, default: []].append((try? result.get()) ?? -1)
                    return c.count
                }
                if count == callbacks { done.set() }
            }
        }
        let awaited = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for i in 0..<100 { group.addTask { (i, try await committer.submit(i)) } }
            return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }
        try await done.wait(timeout: .seconds(60))
        #expect(awaited.count == 100 && awaited.allSatisfy { $0.value == $0.key * 2 })
        let seen = calls.withLock { $0 }
        #expect(seen.count == callbacks)
        #expect(seen.allSatisfy { $0.value == [$0.key * 2] }, "each callback ran once, with its own outcome")
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.allSatisfy { $0.count <= 8 })
        #expect(batches.reduce(0) { $0 + $1.count } == 300, "every item was flushed once")
    }

    @Test func aFailedFlushFailsEveryItemOfItsBatchAndOnlyThose() async throws {
        let recorder = Recorder()
        let committer = BatchCommitter<Int, Int>(maxBatch: 1, maxConcurrentFlushes: 1) { try await recorder.flush($0) }
        let failed = Flag()
        committer.submit(-1) { result in if case .failure(let error) = result, error is Refused { failed.set() } }
        try await failed.wait(timeout: .seconds(60))
        #expect(try await committer.submit(21) == 42, "the next batch is flushed normally")
        await #expect(throws: Refused.self) { _ = try await committer.submit(-2) }
    }

    @Test func withALingerItemsSubmittedWhileItLastsAreWrittenInOneBatch() async throws {
        let recorder = Recorder()
        let committer = BatchCommitter<Int, Int>(maxBatch: 64, maxConcurrentFlushes: 1, linger: .seconds(2)) {
            try await recorder.flush($0)
        }
        let done = Flag()
        let outcomes = Mutex<[Int: Int]>([:])
        for i in 1...20 {
            committer.submit(i) { result in
                if outcomes.withLock({ o -> Int in
                    o[i] = (try? result.get()) ?? -1
                    return o.count
                }) == 20 { done.set() }
            }
        }
        try await done.wait(timeout: .seconds(60))
        #expect(recorder.batches.withLock { $0 } == [Array(1...20)], "without the linger the first item is written alone")
        #expect(outcomes.withLock { $0 }.allSatisfy { $0.value == $0.key * 2 })
    }

    @Test func aLingeringFlushStartsAfterItsWaitWithWhatJoinedIt() async throws {
        let recorder = Recorder()
        let committer = BatchCommitter<Int, Int>(maxBatch: 64, maxConcurrentFlushes: 2, linger: .milliseconds(50)) {
            try await recorder.flush($0)
        }
        async let first = committer.submit(1)
        async let second = committer.submit(2)
        async let third = committer.submit(3)
        #expect(try await [first, second, third] == [2, 4, 6])
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.reduce(0) { $0 + $1.count } == 3, "every item was flushed once")
        #expect(batches.allSatisfy { !$0.isEmpty }, "a lingering flush whose items another took writes nothing")
        #expect(try await committer.submit(4) == 8, "the committer goes on after lingering flushes")
    }

    @Test func aCallbackFlushStartsWhereItIsSubmittedAndItsSuccessorWhereItEnds() throws {
        typealias Done = @Sendable (Result<[Int], any Error>) -> Void
        let flushes = Mutex<[(items: [Int], done: Done)]>([])
        let committer = BatchCommitter<Int, Int>(maxBatch: 64, maxConcurrentFlushes: 1, callbackFlush: { items, done in
            flushes.withLock { $0.append((items, done)) }
        })
        let outcomes = Mutex<[Int: Int]>([:])
        let flushesWhenTheFirstOutcomeCame = Mutex<Int?>(nil)
        committer.submit(1) { result in
            flushesWhenTheFirstOutcomeCame.withLock { $0 = flushes.withLock { $0.count } }
            outcomes.withLock { $0[1] = (try? result.get()) ?? -1 }
        }
        for i in 2...3 { committer.submit(i) { result in outcomes.withLock { $0[i] = (try? result.get()) ?? -1 } } }
        #expect(flushes.withLock { $0.map(\.items) } == [[1]], "the first item's flush started on the submitting thread; the others wait")

        flushes.withLock { $0[0].done }(.success([10]))
        #expect(flushes.withLock { $0.map(\.items) } == [[1], [2, 3]], "what waited is the next batch, started when the first ended")
        #expect(flushesWhenTheFirstOutcomeCame.withLock { $0 } == 2, "the next flush started before the first batch's outcomes")
        #expect(outcomes.withLock { $0 } == [1: 10])

        flushes.withLock { $0[1].done }(.failure(Refused()))
        #expect(outcomes.withLock { $0 } == [1: 10, 2: -1, 3: -1], "a failed flush fails each item of its batch")
        committer.submit(4) { result in outcomes.withLock { $0[4] = (try? result.get()) ?? -1 } }
        #expect(flushes.withLock { $0.map(\.items) } == [[1], [2, 3], [4]], "an idle committer flushes a new item at once")
        // A kept completion holds the committer, which holds the flush that keeps it: let go of the cycle.
        flushes.withLock { $0[2].done }(.success([8]))
        flushes.withLock { $0.removeAll() }
    }

    @Test func aBacklogOfFlushesThatEndBeforeReturningIsWorkedOffInALoopNotNested() throws {
        typealias Done = @Sendable (Result<[Int], any Error>) -> Void
        let held = Mutex<Done?>(nil)
        // The first flush stays open while the backlog builds; every later one ends before it returns, as a closed
        // pool's does. Nested, 50,000 of them overflow the stack (signal 11); looped, each gets its outcome.
        let committer = BatchCommitter<Int, Int>(maxBatch: 1, maxConcurrentFlushes: 1, callbackFlush: { items, done in
            if items == [0] { held.withLock { $0 = done } } else { done(.failure(Refused())) }
        })
        let refused = Atomic<Int>(0)
        let backlog = 50_000
        for i in 0...backlog {
            committer.submit(i) { result in if case .failure = result { refused.add(1, ordering: .relaxed) } }
        }
        // Taken out of the fixture as it is called: kept, it would hold the committer, which holds the flush that keeps it.
        held.withLock { h in defer { h = nil }; return h }?(.success([0]))
        #expect(refused.load(ordering: .relaxed) == backlog, "every batch of the backlog was flushed and answered")
    }
}
