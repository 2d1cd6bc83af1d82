import CH2ClientShims
public import MailwakeCore
import MailwakeHTTPTypes
import MailwakeProtocol
import Synchronization

/// An HTTP/2-over-TLS client for one origin, on libnghttp2 and OpenSSL
/// (`CH2ClientShims`): the relay's APNs transport.
///
/// One thread per client runs its connections (opened on demand, up to
/// `maxConnectionsPerHost`, each carrying up to `maxConcurrentStreams`
/// requests), TLS, HTTP/2 and the requests' deadlines; `execute` hands a
/// request over with one lock and, for the first of a batch, one wake-up,
/// and the thread resumes the caller with the answer. Requests the server
/// refused without processing them (REFUSED_STREAM, above a GOAWAY's last
/// stream) and requests whose HEADERS never left a closing connection are
/// sent again on another connection, up to twice, before failing with
/// `.streamRefused`. The trust store is loaded once per client, not per
/// connection.
///
/// What it does not do, unlike `HTTPClient`: HTTP/1.1, proxies, redirects,
/// key pinning and the public-address check; the configuration is refused
/// when it asks for one of them. `TransferInfo.localPort` carries the
/// connection's number (1, 2, ... in the order the client opened them).
public final class HTTP2Client: HTTPRequestExecuting {
    public let configuration: HTTPClient.Configuration
    private let origin: HTTP2Origin
    private let client: Handle
    private let ids = Atomic<UInt64>(0)
    private let logger: Logger

    /// - Parameters:
    ///   - origin: `https://host[:port]`; request URLs must start with it.
    ///   - configuration: the same settings as `HTTPClient`'s; `httpVersion`
    ///     `.http1_1`, `pinnedPublicKeys`, `publicAddressesOnly` and
    ///     `followRedirects` are refused; environment proxies are never used.
    ///   - metrics: the same series as `HTTPClient`'s.
    public init(origin: String, configuration: HTTPClient.Configuration = HTTPClient.Configuration(), logger: Logger = .disabled,
                metrics: MetricsRegistry? = nil) throws {
        try configuration.validate()
        func unsupported(_ what: String) -> HTTPClientError {
            HTTPClientError(.invalidConfiguration, "the HTTP/2 client does not support \(what)")
        }
        guard configuration.httpVersion != .http1_1 else { throw unsupported("HTTP/1.1") }
        guard configuration.pinnedPublicKeys.isEmpty else { throw unsupported("pinned public keys") }
        guard !configuration.publicAddressesOnly else { throw unsupported("publicAddressesOnly") }
        guard !configuration.followRedirects else { throw unsupported("following redirects") }
        self.origin = try HTTP2Origin(origin)
        self.configuration = configuration
        self.logger = logger.with("http_client", .string(configuration.name))
        let context = Callbacks(logger: self.logger.with("origin", .string(self.origin.prefix)), origin: self.origin.prefix,
                                metrics: metrics.map { ClientMetrics(registry: $0, prefix: configuration.metricsPrefix,
                                                                     client: configuration.name) })
        client = try Handle(origin: self.origin, configuration: configuration, context: context)
    }

    /// Sends `request` (its URL on this client's origin) and returns the response, whatever its status.
    ///
    /// Throws `HTTPClientError` when no complete response arrived, and
    /// `CancellationError` when the calling task is cancelled (the stream is
    /// reset; the connection stays).
    public func execute(_ request: HTTPClient.Request, logger: Logger? = nil) async throws -> HTTPClient.Response {
        try Task.checkCancellation()
        let prepared = try prepare(request, logger: logger)
        let client = self.client
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                submit(prepared, answering: .task(continuation))
                // A cancellation that raced ahead of the submission found nothing to cancel.
                if Task.isCancelled { mw_h2_client_cancel(client.raw, prepared.id) }
            }
        } onCancel: {
            mw_h2_client_cancel(client.raw, prepared.id)
        }
    }

    /// Sends `request` without a task: `completion` gets the response or the `HTTPClientError`, once, on the
    /// client's thread (or on the caller's when the request is refused before it is handed over). It must not block.
    public func execute(_ request: HTTPClient.Request, logger: Logger? = nil,
                        then completion: @escaping @Sendable (Result<HTTPClient.Response, any Error>) -> Void) {
        let prepared: Prepared
        do {
            prepared = try prepare(request, logger: logger)
        } catch {
            completion(.failure(error))
            return
        }
        submit(prepared, answering: .callback(completion))
    }

    /// A request checked and ready for the C client.
    private struct Prepared {
        let request: HTTPClient.Request
        let path: Substring
        let maxBody: Int
        let timeoutMS: Int
        let id: UInt64
        let logger: Logger
    }

    /// Checks `request` against this client and its limits, and numbers it.
    private func prepare(_ request: HTTPClient.Request, logger: Logger?) throws -> Prepared {
        try HTTPClient.validate(request)
        guard request.followRedirects != true else {
            throw HTTPClientError(.invalidRequest, "the HTTP/2 client does not follow redirects")
        }
        let path = try origin.path(of: request.url)
        let maxBody = request.maxResponseBytes ?? configuration.maxResponseBytes
        guard maxBody >= 0 else { throw HTTPClientError(.invalidRequest, "maxResponseBytes must not be negative") }
        let timeout = request.timeout ?? configuration.totalTimeout
        guard timeout > .zero else { throw HTTPClientError(.invalidRequest, "timeout must be positive") }
        return Prepared(request: request, path: path, maxBody: maxBody, timeoutMS: HTTPClient.milliseconds(timeout),
                        id: ids.wrappingAdd(1, ordering: .relaxed).newValue,
                        logger: logger.map { $0.with("http_client", .string(configuration.name)) } ?? self.logger)
    }

    /// Hands the request to the C client with `waiter` for its answer; answers `.shutdown` at once when the client
    /// has stopped.
    private func submit(_ prepared: Prepared, answering waiter: HTTP2Exchange.Waiter) {
        let exchange = HTTP2Exchange(waiter: waiter, method: prepared.request.method, logger: prepared.logger)
        client.context.metrics?.inFlight.increment()
        let retained = Unmanaged.passRetained(exchange)
        let submitted = Self.submit(prepared.request, path: prepared.path, userAgent: configuration.userAgent, id: prepared.id,
                                    maxBody: prepared.maxBody, timeoutMS: prepared.timeoutMS, to: client.raw,
                                    context: retained.toOpaque())
        if !submitted {
            retained.release()
            client.context.metrics?.inFlight.decrement()
            exchange.resume(.failure(HTTPClientError(.shutdown, "the HTTP client was shut down")))
        }
    }

    /// Fails every pending request with `.shutdown`, closes the connections
    /// and joins the client's thread. Later `execute` calls throw `.shutdown`.
    /// Idempotent. Blocks briefly (until the thread has stopped).
    public func shutdown() { mw_h2_client_stop(client.raw) }

    /// Connections opened since the client started, and open now.
    public var connections: (opened: UInt64, open: UInt64) {
        (mw_h2_client_connections_opened(client.raw), mw_h2_client_connections_open(client.raw))
    }

    /// Copies the request into the C client: pseudo-headers from `path`, the
    /// request's fields with names in lower case (HTTP/2), a `user-agent`
    /// unless the request has one. Names and values are packed into one
    /// stack buffer for the call.
    private static func submit(_ request: HTTPClient.Request, path: Substring, userAgent: String, id: UInt64, maxBody: Int,
                               timeoutMS: Int, to raw: OpaquePointer, context: UnsafeMutableRawPointer) -> Bool {
        let addAgent = request.headers["user-agent"] == nil
        let count = request.headers.fields.count + (addAgent ? 1 : 0)
        var bytes = path.utf8.count + request.method.rawValue.utf8.count + (addAgent ? 10 + userAgent.utf8.count : 0)
        for field in request.headers { bytes += field.name.utf8.count + field.value.utf8.count }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, bytes)) { buffer in
            withUnsafeTemporaryAllocation(of: mw_h2c_header.self, capacity: max(1, count)) { headers in
                var at = 0
                func put(_ text: some StringProtocol, lowercased: Bool) -> (UnsafePointer<CChar>, Int) {
                    let start = at
                    text.withContiguousUTF8 { utf8 in
                        for b in utf8 {
                            buffer[at] = lowercased && b >= 0x41 && b <= 0x5A ? b | 0x20 : b
                            at += 1
                        }
                    }
                    return (UnsafeRawPointer(buffer.baseAddress! + start).assumingMemoryBound(to: CChar.self), at - start)
                }
                let method = put(request.method.rawValue, lowercased: false)
                let pathBytes = put(path, lowercased: false)
                var n = 0
                func header(_ name: some StringProtocol, _ value: some StringProtocol) {
                    let (np, nl) = put(name, lowercased: true)
                    let (vp, vl) = put(value, lowercased: false)
                    headers[n] = mw_h2c_header(name: np, name_len: nl, value: vp, value_len: vl)
                    n += 1
                }
                for field in request.headers { header(field.name, field.value) }
                if addAgent { header("user-agent", userAgent) }
                let rc: Int32
                if let body = request.body {
                    rc = body.withUnsafeBufferPointer { b in
                        mw_h2_client_submit(raw, id, method.0, method.1, pathBytes.0, pathBytes.1, headers.baseAddress, n,
                                            b.baseAddress ?? UnsafePointer(buffer.baseAddress!), b.count, maxBody,
                                            UInt32(clamping: timeoutMS), context)
                    }
                } else {
                    rc = mw_h2_client_submit(raw, id, method.0, method.1, pathBytes.0, pathBytes.1, headers.baseAddress, n, nil, 0,
                                             maxBody, UInt32(clamping: timeoutMS), context)
                }
                return rc == 0
            }
        }
    }
}
