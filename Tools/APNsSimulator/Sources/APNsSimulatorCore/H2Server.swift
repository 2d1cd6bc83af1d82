import CH2ServerShims
public import MailwakeCore
import Synchronization

/// An HTTP/2-over-TLS server (the `CH2ServerShims` C target: OpenSSL and
/// libnghttp2, ALPN `h2` or, unless required, prior knowledge) that hands every complete request to a
/// Swift handler and sends back what it returns.
///
/// The handler runs synchronously on the connection's own thread (never on
/// Swift's cooperative pool), concurrently for different connections. A
/// response with a delay is queued by the connection and sent when due, so
/// other streams of the connection are not held up.
// The C server is safe to call from any thread for the port, GOAWAY, the
// stream limit and the counters (atomics and a lock inside); `stop` frees it
// exactly once, guarded by `stopped`, and nothing touches it afterwards.
public final class H2Server: @unchecked Sendable, SimulatorTransport {
    /// What the C callbacks reach through their context pointer.
    final class Dispatcher: Sendable {
        let handler: @Sendable (SimulatorRequest) -> SimulatorResponse
        let logger: Logger
        let maxBodyBytes: Int

        init(handler: @escaping @Sendable (SimulatorRequest) -> SimulatorResponse, logger: Logger, maxBodyBytes: Int) {
            self.handler = handler
            self.logger = logger
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// The bound port.
    public let port: UInt16
    private let server: OpaquePointer
    private let context: Unmanaged<Dispatcher>
    private let stopped = Atomic<Bool>(false)

    /// Binds and starts serving.
    ///
    /// - Parameters:
    ///   - port: 0 picks a free port (see `port`).
    ///   - maxBodyBytes: bytes of a request body kept; the rest is counted
    ///     (`SimulatorRequest.bodyLength`) and dropped.
    ///   - handler: answers one request; runs on connection threads.
    ///   - requireALPN: refuse a TLS client that does not negotiate `h2` through ALPN (false: also serve one that
    ///     offers no ALPN and speaks HTTP/2 by prior knowledge, as Apple's servers do).
    public init(host: String, port: UInt16, certificateFile: String, privateKeyFile: String, maxConcurrentStreams: Int,
                maxBodyBytes: Int, requireALPN: Bool = false, logger: Logger,
                handler: @escaping @Sendable (SimulatorRequest) -> SimulatorResponse) throws {
        let context = Unmanaged.passRetained(Dispatcher(handler: handler, logger: logger, maxBodyBytes: maxBodyBytes))
        var error = [CChar](repeating: 0, count: 512)
        // The C side reads these strings during the call only.
        let started: OpaquePointer? = host.withCString { h in
            certificateFile.withCString { c in
                privateKeyFile.withCString { k in
                    var config = mw_h2_server_config(
                        host: h, port: port, certificate_file: c, private_key_file: k,
                        max_concurrent_streams: UInt32(clamping: max(1, maxConcurrentStreams)), max_body_bytes: maxBodyBytes,
                        require_alpn: requireALPN ? 1 : 0, on_request: h2OnRequest, on_log: h2OnLog, ctx: context.toOpaque())
                    return mw_h2_server_start(&config, &error, error.count)
                }
            }
        }
        guard let started else {
            context.release()
            throw SimulatorError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        server = started
        self.context = context
        self.port = mw_h2_server_port(started)
    }

    deinit { stop() }

    /// Closes the listener and every connection and waits for their
    /// threads; no handler runs after it returns. Idempotent. Blocks briefly.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        mw_h2_server_stop(server)
        context.release()
    }

    public func setMaxConcurrentStreams(_ value: Int) {
        guard !stopped.load(ordering: .acquiring) else { return }
        mw_h2_server_set_max_concurrent_streams(server, UInt32(clamping: max(1, value)))
    }

    public func goaway(connection: UInt64?) -> Int {
        guard !stopped.load(ordering: .acquiring) else { return 0 }
        return Int(mw_h2_server_goaway(server, connection ?? 0))
    }

    public var connectionsAccepted: UInt64 {
        stopped.load(ordering: .acquiring) ? 0 : mw_h2_server_connections_accepted(server)
    }

    public var connectionsOpen: UInt64 {
        stopped.load(ordering: .acquiring) ? 0 : mw_h2_server_connections_open(server)
    }
}

/// A header value from the C request, nil when absent.
private func text(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> String? {
    guard let pointer else { return nil }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
}

private let h2OnRequest: mw_h2_request_cb = { ctx, request, response in
    guard let ctx, let request, let response else { return }
    let dispatcher = Unmanaged<H2Server.Dispatcher>.fromOpaque(ctx).takeUnretainedValue()
    let r = request.pointee
    let body = r.body.map { Array(UnsafeBufferPointer(start: $0, count: r.body_len)) } ?? []
    let simulatorRequest = SimulatorRequest(
        method: text(r.method, r.method_len) ?? "", path: text(r.path, r.path_len) ?? "",
        authorization: text(r.authorization, r.authorization_len), topic: text(r.apns_topic, r.apns_topic_len),
        pushType: text(r.apns_push_type, r.apns_push_type_len), priority: text(r.apns_priority, r.apns_priority_len),
        apnsID: text(r.apns_id, r.apns_id_len), expiration: text(r.apns_expiration, r.apns_expiration_len),
        collapseID: text(r.apns_collapse_id, r.apns_collapse_id_len), body: body, bodyLength: r.body_received,
        connection: r.connection_id, stream: r.stream_id, connectionRequests: Int(r.connection_requests))
    let answer = dispatcher.handler(simulatorRequest)
    response.pointee.status = UInt32(clamping: answer.status)
    response.pointee.delay_ms = UInt32(clamping: max(0, answer.delayMS))
    response.pointee.goaway = answer.goaway ? 1 : 0
    if let apnsID = answer.apnsID {
        var id = apnsID
        _ = id.withUTF8 { mw_h2_response_set_apns_id(response, UnsafeRawPointer($0.baseAddress)?.assumingMemoryBound(to: CChar.self),
                                                     $0.count) }
    }
    if !answer.body.isEmpty {
        _ = answer.body.withUnsafeBufferPointer { mw_h2_response_set_body(response, $0.baseAddress, $0.count) }
    }
}

private let h2OnLog: mw_h2_log_cb = { ctx, level, connection, message in
    guard let ctx, let message else { return }
    let logger = Unmanaged<H2Server.Dispatcher>.fromOpaque(ctx).takeUnretainedValue().logger
    let metadata: [String: LogValue] = connection == 0 ? [:] : ["connection": .int(connection)]
    switch level {
    case 0: logger.debug(String(cString: message), metadata)
    case 1: logger.info(String(cString: message), metadata)
    default: logger.warning(String(cString: message), metadata)
    }
}
