#if canImport(Glibc)
import Glibc
#endif
import CCurlShims
import MailwakeCore
import MailwakeHTTPTypes
import Synchronization

/// One transfer's C state (`mw_transfer`: easy handle, header list, buffers).
// Safe to send because ownership moves, never shares: the calling task builds
// it, hands it to the owner thread through the engine's lock (a happens-before
// edge), and from then on only the owner thread touches it. It goes back to
// its pool (or is freed) exactly once, in deinit, after the owner thread has
// removed the easy handle from the multi handle (or it was never added).
final class CurlTransfer: @unchecked Sendable {
    let raw: OpaquePointer
    let id: UInt64
    private let pool: TransferPool

    init(id: UInt64, maxBody: Int, maxHeaderBytes: Int, pool: TransferPool) throws {
        guard let raw = pool.take(id: id, maxBody: maxBody, maxHeaderBytes: maxHeaderBytes) else {
            throw HTTPClientError(.other, "could not create a curl transfer (out of memory)")
        }
        self.raw = raw
        self.id = id
        self.pool = pool
    }

    deinit { pool.giveBack(raw) }

    var easy: UnsafeMutableRawPointer { mw_transfer_easy(raw) }
}

/// A submitted request: its transfer and the continuation to resume, exactly
/// once, by whoever removes the job from where it is kept.
final class Job: Sendable {
    let transfer: CurlTransfer
    let continuation: CheckedContinuation<HTTPClient.Response, any Error>
    let method: HTTPMethod
    /// `scheme://host[:port]`: what logs may say about the target (paths can
    /// carry device tokens and identifiers), and the key of its `OriginQueue`.
    let origin: String
    let logger: Logger
    /// When `execute` handed it over: the request's timeout counts from here.
    let started: ContinuousClock.Instant
    let timeout: Duration

    init(transfer: CurlTransfer, continuation: CheckedContinuation<HTTPClient.Response, any Error>, method: HTTPMethod, origin: String,
         logger: Logger, timeout: Duration) {
        self.transfer = transfer
        self.continuation = continuation
        self.method = method
        self.origin = origin
        self.logger = logger
        self.timeout = timeout
        started = .now
    }

    var deadline: ContinuousClock.Instant { started + timeout }
}

/// The libcurl multi handle and the one thread that owns it (DESIGN.md §3).
///
/// Requests arrive through `inbox` (a lock) plus `curl_multi_wakeup`; the
/// owner thread adds them to the multi handle, drives `curl_multi_perform` /
/// `curl_multi_poll`, and resumes continuations as transfers finish.
///
/// The multi handle gets at most what it can run at once per origin
/// (`OriginQueue.limit`: connections × streams); the rest wait here, first in
/// first out, and are added as transfers finish. libcurl 7.88 scans its list
/// of waiting handles on every `curl_multi_remove_handle`, and walks every
/// handle it holds on every `curl_multi_perform`, so handing it a backlog
/// made each request cost more the longer the backlog (docs/http-client.md).
// Safe to share across threads: mutable state is guarded by the inbox lock,
// and the multi handle is touched only by the owner thread.
final class CurlEngine: @unchecked Sendable {
    // `@unchecked Sendable` is safe because: `active`, `waiting`, `origins`,
    // `deadlines` and `finished` are touched only by the owner thread; `multi` is used by the owner
    // thread, and by other threads only through `curl_multi_wakeup` (thread-
    // safe by libcurl's contract) while holding `inbox`'s lock with the state
    // `.running` — the owner thread moves the state away from `.running`
    // under that lock before it ever calls `curl_multi_cleanup`. All other
    // stored properties are immutable or are Mutex/Atomic.

    enum State { case running, stopping, stopped }

    enum Command {
        case add(Job)
        case cancel(UInt64)
    }

    struct Inbox {
        var state = State.running
        var commands: [Command] = []
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private let ids = Atomic<UInt64>(0)
    private let thread = Mutex<pthread_t?>(nil)
    private let logger: Logger
    private let metrics: ClientMetrics?
    private let connectionsPerHost: Int
    private let streamsPerConnection: Int
    private let versionPreference: HTTPClient.VersionPreference

    // Set before the owner thread starts, read by it.
    private var threadName = ""
    // Owner thread only.
    /// Jobs whose easy handle is in the multi handle.
    private var active: [UInt64: Job] = [:]
    /// Jobs queued behind their origin's limit, not yet in the multi handle.
    private var waiting: [UInt64: Job] = [:]
    private var origins: [String: OriginQueue] = [:]
    /// Deadlines of the waiting jobs (stale entries are skipped).
    private var deadlines = DeadlineHeap()
    /// Finished transfers of one `curl_multi_info_read` round, reused.
    private var finished: [(OpaquePointer, CURLcode)] = []

    init(configuration: HTTPClient.Configuration, logger: Logger, metrics: MetricsRegistry?) throws {
        let rc = mw_curl_global_init()
        guard rc == CURLE_OK else { throw HTTPClientError(.other, "curl_global_init failed", curlCode: Int(rc.rawValue)) }
        guard let multi = curl_multi_init() else { throw HTTPClientError(.other, "curl_multi_init failed") }
        self.multi = multi
        self.logger = logger
        self.metrics = metrics.map { ClientMetrics(registry: $0, prefix: configuration.metricsPrefix, client: configuration.name) }
        connectionsPerHost = configuration.maxConnectionsPerHost
        streamsPerConnection = configuration.maxConcurrentStreams
        versionPreference = configuration.httpVersion
        _ = mw_curl_multi_set_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = mw_curl_multi_set_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        // libcurl's default cache holds 4 connections per transfer in flight,
        // so a quiet spell closed connections a burst had opened, and the next
        // burst paid new TLS handshakes (on both ends). Keep every connection
        // the per-host limit allows, for a few hosts.
        _ = mw_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxConnectionsPerHost * 4)
        _ = mw_curl_multi_set_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams)
    }

    /// Starts the owner thread.
    func start(name: String) throws {
        threadName = "mw-http-" + name
        var tid = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&tid, nil, { arg in
            let engine = Unmanaged<CurlEngine>.fromOpaque(arg!).takeRetainedValue()
            engine.threadName.withCString { mw_set_current_thread_name($0) }
            engine.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<CurlEngine>.fromOpaque(context).release()
            // No thread will ever clean up: mark stopped first so that a later
            // shutdown() (from the client's deinit) does not wake a freed handle.
            inbox.withLock { $0.state = .stopped }
            curl_multi_cleanup(multi)
            throw HTTPClientError(.other, "could not start the HTTP client thread (error \(rc))")
        }
        thread.withLock { $0 = tid }
    }

    func nextID() -> UInt64 { ids.wrappingAdd(1, ordering: .relaxed).newValue }

    /// Hands a job to the owner thread; false when the client is shut down
    /// (the caller still owns the job then).
    func submit(_ job: Job) -> Bool {
        inbox.withLock { box in
            guard box.state == .running else { return false }
            box.commands.append(.add(job))
            // Only the first command of a batch needs to wake the thread: it
            // takes the whole batch at once.
            if box.commands.count == 1 { _ = curl_multi_wakeup(multi) }
            return true
        }
    }

    /// Asks the owner thread to abandon request `id` (no-op if it finished).
    func cancel(_ id: UInt64) {
        inbox.withLock { box in
            guard box.state == .running else { return }
            box.commands.append(.cancel(id))
            if box.commands.count == 1 { _ = curl_multi_wakeup(multi) }
        }
    }

    /// Fails every pending request with `.shutdown`, stops and joins the owner
    /// thread. Idempotent; concurrent callers all return after the thread has ended.
    func shutdown() {
        inbox.withLock { box in
            guard box.state == .running else { return }
            box.state = .stopping
            _ = curl_multi_wakeup(multi)
        }
        thread.withLock { tid in
            if let t = tid {
                pthread_join(t, nil)
                tid = nil
            }
        }
    }

    // MARK: owner thread

    private func run() {
        var batch: [Command] = []
        var stillRunning: Int32 = 0
        while true {
            let state = inbox.withLock { box in
                swap(&batch, &box.commands)
                return box.state
            }
            for command in batch {
                switch command {
                case .add(let job):
                    if state == .running { enqueue(job) } else { finish(job,
                                                                        .failure(HTTPClientError(.shutdown,
                                                                            "the HTTP client was shut down"))) }
                case .cancel(let id):
                    cancel(id: id)
                }
            }
            batch.removeAll(keepingCapacity: true)
            if state != .running { break }

            expireWaiting()
            let performed = curl_multi_perform(multi, &stillRunning)
            if performed != CURLM_OK { logger.error("curl_multi_perform failed", ["code": .int(Int(performed.rawValue))]) }
            completeFinished()
            let polled = curl_multi_poll(multi, nil, 0, pollTimeoutMS(), nil)
            if polled != CURLM_OK {
                logger.error("curl_multi_poll failed", ["code": .int(Int(polled.rawValue))])
                usleep(10_000)
            }
        }

        let shutdownError = HTTPClientError(.shutdown, "the HTTP client was shut down")
        for job in active.values {
            _ = curl_multi_remove_handle(multi, job.transfer.easy)
            metrics?.inFlight.decrement()
            finish(job, .failure(shutdownError))
        }
        active.removeAll()
        for job in waiting.values {
            metrics?.queued.decrement()
            metrics?.inFlight.decrement()
            finish(job, .failure(shutdownError))
        }
        waiting.removeAll()
        origins.removeAll()
        deadlines.removeAll()
        let leftovers = inbox.withLock { box in
            box.state = .stopped
            defer { box.commands.removeAll() }
            return box.commands
        }
        for case .add(let job) in leftovers { finish(job, .failure(shutdownError)) }
        curl_multi_cleanup(multi)
    }

    /// Starts `job` when its origin has room (and nobody is queued before
    /// it), else queues it.
    private func enqueue(_ job: Job) {
        metrics?.inFlight.increment()
        var origin = origins[job.origin] ?? OriginQueue(limit: initialLimit(job.origin))
        // Invariant: an origin below its limit has no live job queued (each
        // free slot is filled at once), so starting now keeps FIFO order.
        if origin.active < origin.limit {
            if start(job) { origin.active += 1 }
        } else {
            origin.append(job.transfer.id)
            waiting[job.transfer.id] = job
            deadlines.push(job.deadline, job.transfer.id)
            metrics?.queued.increment()
        }
        store(origin, job.origin)
    }

    /// Adds the easy handle to the multi handle; false (and the job
    /// finished with an error) when it could not be.
    private func start(_ job: Job) -> Bool {
        let rc = curl_multi_add_handle(multi, job.transfer.easy)
        guard rc == CURLM_OK else {
            metrics?.inFlight.decrement()
            finish(job, .failure(HTTPClientError(.other, "curl_multi_add_handle failed (\(rc.rawValue))")))
            return false
        }
        active[job.transfer.id] = job
        return true
    }

    /// Fills `key`'s free slots from its queue, oldest first. A queued job's
    /// timeout counts from `execute`: it gets what is left of it, and fails
    /// unsent when less than `startFloor` is left (under a lasting overload the
    /// oldest job is always near its deadline: started, it would be cut off
    /// mid-flight, and over HTTP/1.1 its connection with it).
    private func admit(_ key: String) {
        guard var origin = origins[key] else { return }
        var now: ContinuousClock.Instant?
        while origin.active < origin.limit, let id = origin.popFirst() {
            guard let job = waiting.removeValue(forKey: id) else { continue }
            metrics?.queued.decrement()
            let instant = now ?? .now
            now = instant
            let left = job.deadline - instant
            guard left > Self.startFloor(job.timeout) else {
                metrics?.inFlight.decrement()
                finish(job, .failure(Self.queueTimeout(job)))
                continue
            }
            _ = mw_curl_set_long(job.transfer.easy, CURLOPT_TIMEOUT_MS, HTTPClient.milliseconds(left))
            if start(job) { origin.active += 1 }
        }
        store(origin, key)
    }

    /// Keeps `origin` under `key`, or forgets it when it holds nothing (a
    /// webhook client meets many origins).
    private func store(_ origin: OriginQueue, _ key: String) {
        if origin.active == 0 && origin.isEmpty { origins[key] = nil } else { origins[key] = origin }
    }

    /// Transfers one origin may have in the multi handle: one per connection
    /// for HTTP/1.1, `maxConcurrentStreams` per connection for HTTP/2 (until
    /// an answer says which, HTTPS under `.http2` counts as HTTP/2).
    private func initialLimit(_ origin: String) -> Int {
        switch versionPreference {
        case .http1_1: connectionsPerHost
        case .http2PriorKnowledge: connectionsPerHost * streamsPerConnection
        case .http2: origin.hasPrefix("https://") ? connectionsPerHost * streamsPerConnection : connectionsPerHost
        }
    }

    /// One transfer of `key` left the multi handle; `version` is what it answered with, if it did.
    private func released(_ key: String, version: HTTPClient.HTTPVersion?) {
        guard var origin = origins[key] else { return }
        origin.active -= 1
        switch version {
        case .http2?: origin.limit = connectionsPerHost * streamsPerConnection
        case .http1_1?, .http1_0?: origin.limit = connectionsPerHost
        default: break
        }
        origins[key] = origin
        admit(key)
    }

    private func cancel(id: UInt64) {
        if let job = active.removeValue(forKey: id) {
            _ = curl_multi_remove_handle(multi, job.transfer.easy)
            metrics?.inFlight.decrement()
            finish(job, .failure(CancellationError()))
            released(job.origin, version: nil)
        } else if let job = waiting.removeValue(forKey: id) {
            // Never in the multi handle; its id stays in the origin's queue and
            // the deadline heap until it comes up there.
            metrics?.queued.decrement()
            metrics?.inFlight.decrement()
            finish(job, .failure(CancellationError()))
        }
    }

    /// Fails the waiting jobs whose timeout has passed.
    private func expireWaiting() {
        guard !deadlines.isEmpty else { return }
        let now = ContinuousClock.now
        while let id = deadlines.popExpired(now) {
            guard let job = waiting.removeValue(forKey: id) else { continue }
            metrics?.queued.decrement()
            metrics?.inFlight.decrement()
            finish(job, .failure(Self.queueTimeout(job)))
        }
    }

    /// The least time left that a queued job may start with: a tenth of its timeout, at most 1 s.
    static func startFloor(_ timeout: Duration) -> Duration { min(.seconds(1), timeout / 10) }

    private static func queueTimeout(_ job: Job) -> HTTPClientError {
        HTTPClientError(.timeout,
                        "timed out after \(HTTPClient.milliseconds(job.timeout)) ms waiting in the client's queue for a connection " +
                        "or stream")
    }

    /// Until the next waiting job's deadline, at most 1 s.
    private func pollTimeoutMS() -> Int32 {
        guard let first = deadlines.first else { return 1000 }
        let left = first - .now
        guard left > .zero else { return 0 }
        return Int32(min(1000, HTTPClient.milliseconds(left)))
    }

    private func completeFinished() {
        // Read every message first: curl_multi_remove_handle scans the
        // message list, which is empty by then.
        var result = CURLE_OK
        while let raw = mw_curl_multi_next_done(multi, &result) { finished.append((raw, result)) }
        for (raw, result) in finished {
            guard let job = active.removeValue(forKey: mw_transfer_id(raw)) else { continue }
            let outcome = TransferResult.make(job.transfer, result)
            _ = curl_multi_remove_handle(multi, job.transfer.easy)
            metrics?.inFlight.decrement()
            finish(job, outcome)
            released(job.origin, version: try? outcome.get().version)
        }
        finished.removeAll(keepingCapacity: finished.count <= 4096)
    }

    /// Logs, counts and resumes. The job (and so its transfer) is released
    /// by the caller's dropping it afterwards.
    private func finish(_ job: Job, _ outcome: Result<HTTPClient.Response, any Error>) {
        let seconds = Self.seconds(since: job.started)
        switch outcome {
        case .success(let response):
            job.logger.debug("http client request done", [
                "method": .string(job.method.rawValue), "origin": .string(job.origin), "status": .int(response.status.code),
                "http_version": .string(response.version.description), "duration_ms": .int(Int(seconds * 1000)),
                "new_connection": .bool(response.transfer.newConnections > 0),
            ])
            metrics?.record(outcome: "\(response.status.code / 100)xx", seconds: seconds)
        case .failure(let error as HTTPClientError):
            job.logger.info("http client request failed", [
                "method": .string(job.method.rawValue), "origin": .string(job.origin), "error": .string(error.code.rawValue),
                "detail": .string(error.message), "duration_ms": .int(Int(seconds * 1000)),
            ])
            metrics?.record(outcome: error.code.rawValue, seconds: seconds)
        case .failure:
            job.logger.debug("http client request cancelled", ["method": .string(job.method.rawValue), "origin": .string(job.origin)])
            metrics?.record(outcome: "cancelled", seconds: seconds)
        }
        job.continuation.resume(with: outcome)
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// Request counters and latency, labelled by client name.
final class ClientMetrics: Sendable {
    let registry: MetricsRegistry
    let prefix: String
    let client: String
    /// Requests submitted and not finished (queued ones included).
    let inFlight: Gauge
    /// Requests waiting in the client's queue, not yet handed to libcurl.
    let queued: Gauge
    let duration: Histogram
    private let counters = Mutex<[String: Counter]>([:])

    init(registry: MetricsRegistry, prefix: String, client: String) {
        self.registry = registry
        self.prefix = prefix
        self.client = client
        inFlight = registry.gauge(prefix + "_in_flight", help: "HTTP client requests in flight.", labels: ["client": client])
        queued = registry.gauge(prefix + "_queued", help: "HTTP client requests waiting for a connection or stream.",
                                labels: ["client": client])
        duration = registry.histogram(prefix + "_request_duration_seconds", help: "HTTP client request duration in seconds.",
                                      labels: ["client": client])
    }

    func record(outcome: String, seconds: Double) {
        let counter = counters.withLock { cache in
            if let c = cache[outcome] { return c }
            let c = registry.counter(prefix + "_requests_total", help: "HTTP client requests by outcome (status class or error code).",
                                     labels: ["client": client, "outcome": outcome])
            cache[outcome] = c
            return c
        }
        counter.increment()
        duration.observe(seconds)
    }
}
