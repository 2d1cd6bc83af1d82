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
// edge), and from then on only the owner thread touches it. It is freed
// exactly once, in deinit, after the owner thread has removed the easy handle
// from the multi handle (or it was never added).
final class CurlTransfer: @unchecked Sendable {
    let raw: OpaquePointer
    let id: UInt64

    init(id: UInt64, maxBody: Int, maxHeaderBytes: Int) throws {
        guard let raw = mw_transfer_new(id, maxBody, maxHeaderBytes) else {
            throw HTTPClientError(.other, "could not create a curl transfer (out of memory)")
        }
        self.raw = raw
        self.id = id
    }

    deinit { mw_transfer_free(raw) }

    var easy: UnsafeMutableRawPointer { mw_transfer_easy(raw) }
}

/// A submitted request: its transfer and the continuation to resume, exactly
/// once, by whoever removes the job from where it is kept.
final class Job: Sendable {
    let transfer: CurlTransfer
    let continuation: CheckedContinuation<HTTPClient.Response, any Error>
    let method: HTTPMethod
    /// `scheme://host[:port]`: what logs may say about the target (paths can
    /// carry device tokens and identifiers).
    let origin: String
    let logger: Logger
    let started: ContinuousClock.Instant

    init(transfer: CurlTransfer, continuation: CheckedContinuation<HTTPClient.Response, any Error>, method: HTTPMethod, origin: String, logger: Logger) {
        self.transfer = transfer
        self.continuation = continuation
        self.method = method
        self.origin = origin
        self.logger = logger
        started = .now
    }
}

/// The libcurl multi handle and the one thread that owns it (DESIGN.md §3).
///
/// Requests arrive through `inbox` (a lock) plus `curl_multi_wakeup`; the
/// owner thread adds them to the multi handle, drives `curl_multi_perform` /
/// `curl_multi_poll`, and resumes continuations as transfers finish.
// Safe to share across threads: mutable state is guarded by the inbox lock,
// and the multi handle is touched only by the owner thread.
final class CurlEngine: @unchecked Sendable {
    // `@unchecked Sendable` is safe because: `active` and `outcomeCounters`
    // are touched only by the owner thread; `multi` is used by the owner
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

    // Set before the owner thread starts, read by it.
    private var threadName = ""
    // Owner thread only.
    private var active: [UInt64: Job] = [:]

    init(configuration: HTTPClient.Configuration, logger: Logger, metrics: MetricsRegistry?) throws {
        let rc = mw_curl_global_init()
        guard rc == CURLE_OK else { throw HTTPClientError(.other, "curl_global_init failed", curlCode: Int(rc.rawValue)) }
        guard let multi = curl_multi_init() else { throw HTTPClientError(.other, "curl_multi_init failed") }
        self.multi = multi
        self.logger = logger
        self.metrics = metrics.map { ClientMetrics(registry: $0, prefix: configuration.metricsPrefix, client: configuration.name) }
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
                    if state == .running { add(job) } else { finish(job, .failure(HTTPClientError(.shutdown, "the HTTP client was shut down"))) }
                case .cancel(let id):
                    cancelActive(id)
                }
            }
            batch.removeAll(keepingCapacity: true)
            if state != .running { break }

            let performed = curl_multi_perform(multi, &stillRunning)
            if performed != CURLM_OK { logger.error("curl_multi_perform failed", ["code": .int(Int(performed.rawValue))]) }
            completeFinished()
            let polled = curl_multi_poll(multi, nil, 0, 1000, nil)
            if polled != CURLM_OK {
                logger.error("curl_multi_poll failed", ["code": .int(Int(polled.rawValue))])
                usleep(10_000)
            }
        }

        let shutdownError = HTTPClientError(.shutdown, "the HTTP client was shut down")
        for job in active.values {
            _ = curl_multi_remove_handle(multi, job.transfer.easy)
            finish(job, .failure(shutdownError))
        }
        active.removeAll()
        let leftovers = inbox.withLock { box in
            box.state = .stopped
            defer { box.commands.removeAll() }
            return box.commands
        }
        for case .add(let job) in leftovers { finish(job, .failure(shutdownError)) }
        curl_multi_cleanup(multi)
    }

    private func add(_ job: Job) {
        let rc = curl_multi_add_handle(multi, job.transfer.easy)
        guard rc == CURLM_OK else {
            finish(job, .failure(HTTPClientError(.other, "curl_multi_add_handle failed (\(rc.rawValue))")))
            return
        }
        active[job.transfer.id] = job
        metrics?.inFlight.increment()
    }

    private func cancelActive(_ id: UInt64) {
        guard let job = active.removeValue(forKey: id) else { return }
        _ = curl_multi_remove_handle(multi, job.transfer.easy)
        metrics?.inFlight.decrement()
        finish(job, .failure(CancellationError()))
    }

    private func completeFinished() {
        var result = CURLE_OK
        while let raw = mw_curl_multi_next_done(multi, &result) {
            guard let job = active.removeValue(forKey: mw_transfer_id(raw)) else { continue }
            let outcome = TransferResult.make(job.transfer, result)
            _ = curl_multi_remove_handle(multi, job.transfer.easy)
            metrics?.inFlight.decrement()
            finish(job, outcome)
        }
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
    let inFlight: Gauge
    let duration: Histogram
    private let counters = Mutex<[String: Counter]>([:])

    init(registry: MetricsRegistry, prefix: String, client: String) {
        self.registry = registry
        self.prefix = prefix
        self.client = client
        inFlight = registry.gauge(prefix + "_in_flight", help: "HTTP client requests in flight.", labels: ["client": client])
        duration = registry.histogram(prefix + "_request_duration_seconds", help: "HTTP client request duration in seconds.", labels: ["client": client])
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
