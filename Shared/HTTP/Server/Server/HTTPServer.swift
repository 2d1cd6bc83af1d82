import CHTTPServerShims
import Dispatch
import Foundation
public import MailwakeCore
import MailwakeHTTPTypes
import Synchronization

/// An HTTPS server over libmicrohttpd with async handlers (DESIGN.md §3).
///
/// Each complete request is handed to Swift with its connection suspended, so
/// a handler can await without holding an MHD thread; the answer resumes the
/// connection. A per-request deadline makes sure no suspended connection
/// waits forever. Cancelling `run()` drains: the listener stops accepting,
/// in-flight requests get `drainTimeoutSeconds` to finish, the rest are
/// answered 503, and only then is the daemon stopped.
public final class HTTPServer: Service {
    public let configuration: Configuration
    public var name: String { configuration.name }
    let router: Router
    /// The router with its middleware composed once, for every request.
    let responder: RouterResponder
    let logger: Logger
    let metrics: Metrics
    let state = Mutex<State>(State())
    /// Set once `shutdown` begins; every answer reads it (and closes its connection once it is set) without the lock.
    let isDraining = Atomic<Bool>(false)

    /// The MHD daemon.
    // Safe to share: the pointer is only passed to MHD calls that are
    // thread-safe (port, quiesce) or made once at shutdown (stop).
    struct Daemon: @unchecked Sendable { let raw: OpaquePointer }

    struct State {
        var daemon: Daemon?
        var port: UInt16 = 0
        /// Set with the last look at `inFlight`: later dispatches answer 503 themselves.
        var finalized = false
        var stopped = false
        var inFlight: [ObjectIdentifier: PendingRequest] = [:]
        var retainedSelf: Unmanaged<HTTPServer>?
        /// The deadline sweeper, awaited at shutdown so no task of the server outlives it.
        var sweeper: Task<Void, Never>?
    }

    final class Metrics: Sendable {
        struct Key: Hashable, Sendable {
            let method: String
            let route: String
            let status: Int
        }

        let registry: MetricsRegistry
        let prefix: String
        let listener: String
        let inFlight: Gauge
        /// Series already looked up, so the hot path skips the registry's label sorting.
        let cache = Mutex<[Key: (Counter, Histogram)]>([:])

        init(registry: MetricsRegistry, prefix: String, listener: String, inFlight: Gauge) {
            self.registry = registry
            self.prefix = prefix
            self.listener = listener
            self.inFlight = inFlight
        }

        func series(method: String, route: String, status: Int) -> (Counter, Histogram) {
            let key = Key(method: method, route: route, status: status)
            if let hit = cache.withLock({ $0[key] }) { return hit }
            let counter = registry.counter("\(prefix)_http_requests_total",
                                           help: "HTTP requests answered, by listener, method, route and status.",
                                           labels: ["listener": listener, "method": method, "route": route, "status": String(status)])
            let histogram = registry.histogram("\(prefix)_http_request_duration_seconds",
                                               help: "Time from a complete request to its answer, by listener and route.",
                                               labels: ["listener": listener, "route": route])
            cache.withLock { $0[key] = (counter, histogram) }
            return (counter, histogram)
        }
    }

    /// - Parameters:
    ///   - configuration: the listener settings.
    ///   - router: routes and middleware.
    ///   - logger: the service logger; each request adds `request_id`.
    ///   - metrics: the service registry.
    public init(configuration: Configuration, router: Router, logger: Logger, metrics: MetricsRegistry) {
        self.configuration = configuration
        self.router = router
        responder = router.responder()
        self.logger = logger.with("listener", .string(configuration.name))
        self.metrics = Metrics(registry: metrics, prefix: configuration.metricsPrefix, listener: configuration.name,
                               inFlight: metrics.gauge("\(configuration.metricsPrefix)_http_requests_in_flight",
                                                       help: "Requests being handled.",
                                                       labels: ["listener": configuration.name]))
    }

    /// The bound port (after `start()`).
    public var port: UInt16 { state.withLock { $0.port } }

    /// Binds and starts accepting; idempotent. `run()` calls it.
    ///
    /// - Returns: the bound port.
    @discardableResult
    public func start() throws -> UInt16 {
        if let port = state.withLock({ $0.daemon != nil ? $0.port : nil }) { return port }
        let c = configuration
        var certificate: String?
        var key: String?
        if let tls = c.tls {
            do {
                certificate = try String(contentsOfFile: tls.certificatePath, encoding: .utf8)
                key = try String(contentsOfFile: tls.privateKeyPath, encoding: .utf8)
            } catch {
                throw HTTPServerError("cannot read the TLS certificate or key of listener \(c.name): \(error.localizedDescription)")
            }
        } else if !(c.allowPlainHTTP && c.isLoopback) {
            throw HTTPServerError("listener \(c.name) has no TLS certificate; plain HTTP is allowed only on loopback when explicitly " +
                                  "enabled")
        }
        guard c.threads >= 1, c.maxBodyBytes >= 0, c.maxHeaderBytes >= 1024, c.connectionLimit >= 1 else {
            throw HTTPServerError("listener \(c.name) has an invalid limit")
        }
        let unmanaged = Unmanaged.passRetained(self)
        var error = [CChar](repeating: 0, count: 256)
        let daemon: OpaquePointer? = c.host.withCString { host in
            withOptionalCString(certificate) { cert in
                withOptionalCString(key) { keyPtr in
                    var config = mw_http_server_config(
                        engine: Int32(c.engine == .epoll ? MW_HTTP_ENGINE_EPOLL : MW_HTTP_ENGINE_LIBMICROHTTPD),
                        bind_address: host, port: c.port, certificate_pem: cert, private_key_pem: keyPtr,
                        thread_pool_size: UInt32(c.threads), connection_limit: UInt32(c.connectionLimit),
                        per_ip_connection_limit: UInt32(c.perIPConnectionLimit), connection_memory_limit: c.maxHeaderBytes,
                        idle_timeout_seconds: UInt32(c.idleTimeoutSeconds), max_body_bytes: c.maxBodyBytes,
                        strict_client_parsing: c.strictClientParsing ? 1 : 0,
                        on_request: { ctx, request in
                            guard let ctx, let request else { return }
                            Unmanaged<HTTPServer>.fromOpaque(ctx).takeUnretainedValue().dispatch(request)
                        },
                        on_log: { ctx, message in
                            guard let ctx, let message else { return }
                            let server = Unmanaged<HTTPServer>.fromOpaque(ctx).takeUnretainedValue()
                            server.logger.warning("\(server.configuration.engine.rawValue): " +
                                "\(String(cString: message))")
                        },
                        ctx: unmanaged.toOpaque())
                    return mw_http_server_start(&config, &error, error.count)
                }
            }
        }
        guard let daemon else {
            unmanaged.release()
            let reason = String(nulTerminated: error)
            throw HTTPServerError("listener \(c.name) on \(c.host):\(c.port): \(reason)")
        }
        let port = mw_http_server_port(daemon)
        state.withLock {
            $0.daemon = Daemon(raw: daemon)
            $0.port = port
            $0.retainedSelf = unmanaged
        }
        logger.info("listening", ["host": .string(c.host), "port": .int(port), "tls": .bool(c.tls != nil),
                                  "engine": .string(c.engine.rawValue)])
        let sweeper = Task.detached { [weak self] in
            while let server = self, !server.state.withLock({ $0.stopped }) {
                server.sweepDeadlines()
                await sleepIgnoringCancellation(nanoseconds: 50_000_000)
            }
        }
        state.withLock { $0.sweeper = sweeper }
        return port
    }

    /// Starts if needed, serves until cancelled, then drains and stops.
    public func run() async throws {
        try start()
        await waitUntilCancelled()
        await shutdown()
    }

    /// Drains and stops (also called by `run()` on cancellation).
    public func shutdown() async {
        guard let daemon = state.withLock({ s -> Daemon? in
            guard let d = s.daemon, !isDraining.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
            return d
        })?.raw else { return }
        logger.info("draining", ["in_flight": .int(state.withLock { $0.inFlight.count })])
        mw_http_server_quiesce(daemon)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(configuration.drainTimeoutSeconds * 1e9)
        // run() is cancelled when we get here, so sleeps must ignore cancellation.
        while state.withLock({ !$0.inFlight.isEmpty }), DispatchTime.now().uptimeNanoseconds < deadline {
            await sleepIgnoringCancellation(nanoseconds: 5_000_000)
        }
        let leftovers = state.withLock { s -> [PendingRequest] in
            s.finalized = true
            return Array(s.inFlight.values)
        }
        for pending in leftovers {
            if pending.answer(ProblemDetails(status: .serviceUnavailable, code: .shuttingDown, detail: "the server is shutting down",
                                             requestID: "").response) {
                pending.cancelHandler()
                metrics.inFlight.decrement()
            }
            _ = state.withLock { $0.inFlight.removeValue(forKey: ObjectIdentifier(pending)) }
        }
        if !leftovers.isEmpty {
            logger.warning("answered unfinished requests with 503 at shutdown", ["count": .int(leftovers.count)])
            // Let the epoll threads pick up the resumed connections and send.
            await sleepIgnoringCancellation(nanoseconds: 100_000_000)
        }
        let (retained, sweeper) = state.withLock { s -> (Unmanaged<HTTPServer>?, Task<Void, Never>?) in
            s.stopped = true
            s.daemon = nil
            defer {
                s.retainedSelf = nil
                s.sweeper = nil
            }
            return (s.retainedSelf, s.sweeper)
        }
        await sweeper?.value
        // Stopping waits for MHD to pick up resumed connections and joins its threads: not on a pool thread.
        let raw = Daemon(raw: daemon)
        if await OwnThread.run(name: "mw-http-stop", { mw_http_server_stop(raw.raw, 5000) }) == 1 {
            retained?.release()
            logger.info("stopped")
        } else {
            logger.error("the engine still held unanswered requests after 5 s; it is left running",
                         ["engine": .string(configuration.engine.rawValue)])
        }
    }

    private func waitUntilCancelled() async {
        let waiter = CancellationWaiter()
        await withTaskCancellationHandler {
            await waiter.wait()
        } onCancel: {
            waiter.cancel()
        }
    }
}

/// The server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Sleeps even when the current task is cancelled (shutdown runs in a cancelled task).
func sleepIgnoringCancellation(nanoseconds: UInt64) async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { c.resume() }
    }
}

func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
