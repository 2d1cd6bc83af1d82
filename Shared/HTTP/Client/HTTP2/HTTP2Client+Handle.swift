import CH2ClientShims
import MailwakeCore

extension HTTP2Client {
    /// The C client and the context its callbacks get: freed together when
    /// the `HTTP2Client` goes away (stopping it first, if `shutdown` was not called).
    // Safe to share: `raw` is immutable and the C client is thread-safe for
    // submit, cancel and stop (its own lock); it is freed only in deinit, when
    // no other reference can call it.
    final class Handle: @unchecked Sendable {
        let raw: OpaquePointer
        let context: Callbacks
        private let unmanagedContext: Unmanaged<Callbacks>

        init(origin: HTTP2Origin, configuration: HTTPClient.Configuration, context: Callbacks) throws {
            self.context = context
            let unmanagedContext = Unmanaged.passRetained(context)
            self.unmanagedContext = unmanagedContext
            var error = [CChar](repeating: 0, count: 256)
            let threadName = String(("mw-h2-" + configuration.name).utf8.prefix(15)) ?? "mw-h2"
            let started = origin.host.withCString { host in
                configuration.caFile.withOptionalCString { caFile in
                    threadName.withCString { name in
                        var c = mw_h2_client_config()
                        c.host = host
                        c.port = origin.port
                        c.ca_file = caFile
                        c.connections = UInt32(clamping: configuration.maxConnectionsPerHost)
                        c.max_streams = UInt32(clamping: configuration.maxConcurrentStreams)
                        c.connect_timeout_ms = UInt32(clamping: HTTPClient.milliseconds(configuration.connectTimeout))
                        c.max_header_bytes = configuration.maxResponseHeaderBytes
                        c.thread_name = name
                        c.on_done = { ctx, exchange, result in
                            let callbacks = Unmanaged<Callbacks>.fromOpaque(ctx!).takeUnretainedValue()
                            callbacks.finish(Unmanaged<HTTP2Exchange>.fromOpaque(exchange!).takeRetainedValue(), result!.pointee)
                        }
                        c.on_log = { ctx, level, connection, message in
                            let callbacks = Unmanaged<Callbacks>.fromOpaque(ctx!).takeUnretainedValue()
                            callbacks.log(level: level, connection: connection, message: String(cString: message!))
                        }
                        c.ctx = unmanagedContext.toOpaque()
                        return mw_h2_client_start(&c, &error, error.count)
                    }
                }
            }
            guard let started else {
                unmanagedContext.release()
                throw HTTPClientError(.invalidConfiguration, "cannot start the HTTP/2 client: \(String(nulTerminated: error))")
            }
            raw = started
        }

        deinit {
            mw_h2_client_free(raw)
            unmanagedContext.release()
        }
    }
}

extension Optional where Wrapped == String {
    /// Calls `body` with the string's C form, or with nil.
    func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .some(let s): s.withCString(body)
        case .none: body(nil)
        }
    }
}
