import MailwakeCore
import Synchronization

/// Group commit: callers submit one item each and wait; items that arrive
/// while a flush is running are written together by the next flush. Without
/// `linger`, no timer: under light load a batch is one item and costs no
/// added latency, under heavy load batches grow to `maxBatch`. With it, an
/// item that finds the committer idle waits that long for others to join it
/// (for writes nobody waits on, where fewer, larger batches save wake-ups).
final class BatchCommitter<Item: Sendable, Outcome: Sendable>: Sendable {
    typealias Flush = @Sendable ([Item]) async throws -> [Outcome]
    /// Writes a batch and calls its argument once, from any thread, with one outcome per item, in order.
    typealias CallbackFlush = @Sendable ([Item], @escaping @Sendable (Result<[Outcome], any Error>) -> Void) -> Void

    /// Who waits for an item's outcome.
    private enum Waiter {
        /// Unchecked: `run` resumes every pending item exactly once, with its outcome or the flush's error (a checked
        /// continuation allocated and freed a canary for each of the relay's two commits per envelope).
        case task(UnsafeContinuation<Outcome, any Error>)
        /// Called once, where the flush ended (intake on the listener's thread waits this way, without a task of its own).
        case callback(@Sendable (Result<Outcome, any Error>) -> Void)

        func resume(_ result: Result<Outcome, any Error>) {
            switch self {
            case .task(let continuation): continuation.resume(with: result)
            case .callback(let callback): callback(result)
            }
        }
    }

    private struct Pending {
        var item: Item
        var waiter: Waiter
    }

    private struct State {
        var pending: [Pending] = []
        var running = 0
    }

    private let maxBatch: Int
    private let maxConcurrentFlushes: Int
    private let linger: Duration?
    private let flush: CallbackFlush
    private let state = Mutex(State())

    /// - Parameters:
    ///   - maxBatch: items per flush at most.
    ///   - maxConcurrentFlushes: flushes in flight at once (each holds a database connection; a callback flush's
    ///     connection may stay lent while its batch is answered, beside the next flush's).
    ///   - linger: how long an item that finds no flush running waits for more before its flush starts (nil: none).
    ///   - flush: writes a batch and returns one outcome per item, in order.
    init(maxBatch: Int, maxConcurrentFlushes: Int, linger: Duration? = nil, flush: @escaping Flush) {
        self.maxBatch = maxBatch
        self.maxConcurrentFlushes = maxConcurrentFlushes
        self.linger = linger
        self.flush = { items, done in Task { done(await Result { try await flush(items) }) } }
    }

    /// A committer whose flush needs no task: it starts on the thread that submits (or whose flush ended) and its
    /// outcomes are given where it ends (a database connection's thread).
    ///
    /// - Parameters:
    ///   - flush: writes a batch and calls its argument once with one outcome per item, in order; it must not block.
    init(maxBatch: Int, maxConcurrentFlushes: Int, linger: Duration? = nil, callbackFlush flush: @escaping CallbackFlush) {
        self.maxBatch = maxBatch
        self.maxConcurrentFlushes = maxConcurrentFlushes
        self.linger = linger
        self.flush = flush
    }

    /// Submits one item and waits for its outcome.
    func submit(_ item: Item) async throws -> Outcome {
        try await withUnsafeThrowingContinuation { continuation in
            enqueue(Pending(item: item, waiter: .task(continuation)))
        }
    }

    /// Submits one item without waiting: `completion` gets its outcome, once, from the flush that wrote it.
    func submit(_ item: Item, then completion: @escaping @Sendable (Result<Outcome, any Error>) -> Void) {
        enqueue(Pending(item: item, waiter: .callback(completion)))
    }

    private func enqueue(_ pending: Pending) {
        let batch: [Pending]? = state.withLock { s in
            s.pending.append(pending)
            guard s.running < maxConcurrentFlushes else { return nil }
            s.running += 1
            // Lingering, the batch is taken when the wait ends: what arrives meanwhile joins it.
            return linger == nil ? take(&s) : []
        }
        guard let batch else { return }
        guard let linger else {
            run(batch)
            return
        }
        Task {
            try? await Task.sleep(for: linger)
            // Another lingering flush may have taken this item with its own.
            let lingered: [Pending] = state.withLock { s in
                let b = take(&s)
                if b.isEmpty { s.running -= 1 }
                return b
            }
            if !lingered.isEmpty { run(lingered) }
        }
    }

    private func take(_ s: inout State) -> [Pending] {
        let n = min(maxBatch, s.pending.count)
        let batch = Array(s.pending.prefix(n))
        s.pending.removeFirst(n)
        return batch
    }

    /// Flushes `batch`, and each next batch whose flush ended before it returned, in a loop on this thread.
    private func run(_ batch: [Pending]) {
        var batch = batch
        while let next = flushOnce(batch) { batch = next }
    }

    /// Flushes `batch`; when it ends, starts the next batch's flush, then gives this batch its outcomes.
    ///
    /// The next flush starts first because callbacks answer their requests where the flush ended (up to
    /// `maxBatch` answers): the database is not kept waiting for them. A flush that ended before returning (a
    /// closed pool answers at once) leaves the next batch to its caller instead, returned here, so that a backlog of
    /// such flushes loops in `run` rather than nesting one stack frame set per batch.
    private func flushOnce(_ batch: [Pending]) -> [Pending]? {
        let end = FlushEnd()
        flush(batch.map(\.item)) { [self] result in
            if case .success(let outcomes) = result {
                precondition(outcomes.count == batch.count, "a flush must return one outcome per item")
            }
            let next: [Pending] = state.withLock { s in
                if s.pending.isEmpty {
                    s.running -= 1
                    return []
                }
                return take(&s)
            }
            if !next.isEmpty, !end.leaveToCaller(next) { run(next) }
            switch result {
            case .success(let outcomes):
                for (p, o) in zip(batch, outcomes) { p.waiter.resume(.success(o)) }
            case .failure(let error):
                for p in batch { p.waiter.resume(.failure(error)) }
            }
        }
        return end.returned()
    }

    /// Who starts the batch after a flush: the flush's caller when the flush ended before it returned, its
    /// completion otherwise.
    private final class FlushEnd: Sendable {
        private enum Stage {
            case inFlight
            case endedEarly([Pending])
            case returned
        }

        private let stage = Mutex(Stage.inFlight)

        /// From the completion: true when the caller has not returned yet and takes `next` (the completion must not start it).
        func leaveToCaller(_ next: [Pending]) -> Bool {
            stage.withLock { s in
                guard case .inFlight = s else { return false }
                s = .endedEarly(next)
                return true
            }
        }

        /// From the caller, once the flush call returned: the batch the completion left to it, if any.
        func returned() -> [Pending]? {
            stage.withLock { s in
                if case .endedEarly(let next) = s { return next }
                s = .returned
                return nil
            }
        }
    }
}
