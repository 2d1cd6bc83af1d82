extension HTTPServer {
    /// Settings of one listener. Every default is what a production service
    /// should use unless its operator has a reason to change it.
    public struct Configuration: Sendable {
        /// What parses HTTP and runs TLS under the router.
        public enum Engine: String, Sendable, Hashable, CaseIterable {
            /// libmicrohttpd with GnuTLS (DESIGN.md §3).
            case libmicrohttpd
            /// Mailwake's own epoll engine with OpenSSL and a strict HTTP/1.1 parser, which leaves a
            /// connection registered from accept to close: no suspend and resume per request
            /// (docs/dependencies.md, "The relay's intake engine").
            case epoll
        }

        /// PEM certificate chain and private key files for TLS.
        public struct TLS: Sendable, Hashable {
            public var certificatePath: String
            public var privateKeyPath: String
            public init(certificatePath: String, privateKeyPath: String) {
                self.certificatePath = certificatePath
                self.privateKeyPath = privateKeyPath
            }
        }

        /// The listener's name in logs and metrics (`http`, `admin`).
        public var name: String = "http"
        /// An IPv4 or IPv6 literal. Default `127.0.0.1`.
        public var host: String = "127.0.0.1"
        /// 0 picks a free port (tests). Default 8443.
        public var port: UInt16 = 8443
        /// TLS files; nil means plain HTTP, allowed only when `allowPlainHTTP` is set and `host` is loopback.
        public var tls: TLS?
        /// Opt-in for plain HTTP on loopback (tests, the admin listener behind a local scraper).
        public var allowPlainHTTP: Bool = false
        /// The engine. Default `libmicrohttpd`.
        public var engine: Engine = .libmicrohttpd
        /// Worker threads, each with its own epoll loop. Default 2.
        public var threads: Int = 2
        /// Largest accepted request body; larger ones get 413 before the body is read. Default 1 MiB.
        public var maxBodyBytes: Int = 1 << 20
        /// Memory per connection, bounding the request line and headers (431 beyond). Default 32 KiB.
        public var maxHeaderBytes: Int = 32 * 1024
        /// Concurrent connections. Default 1024.
        public var connectionLimit: Int = 1024
        /// Concurrent connections from one IP address; 0 disables the limit. Default 128.
        public var perIPConnectionLimit: Int = 128
        /// Seconds a connection may sit idle (including a slow client sending headers). Default 30.
        public var idleTimeoutSeconds: Int = 30
        /// Seconds a handler may take before the server answers 503 on its behalf. Default 30.
        public var requestDeadlineSeconds: Double = 30
        /// Seconds to let in-flight requests finish at shutdown. Default 10.
        public var drainTimeoutSeconds: Double = 10
        /// Refuse sloppy HTTP (no Host on HTTP/1.1, spaces in the target). Default true.
        public var strictClientParsing: Bool = true
        /// Headers added to every response that does not set them itself
        /// (e.g. `Cache-Control: no-store` on the outpost). Default none.
        public var responseHeaders: [(name: String, value: String)] = []
        /// Metric name prefix, e.g. `mailwake_relay` gives `mailwake_relay_http_requests_total`.
        public var metricsPrefix: String = "mailwake"

        public init() {}

        /// Whether `host` is a loopback address.
        public var isLoopback: Bool { Self.isLoopback(host) }

        /// Whether `host`, an IP literal, is a loopback address (`127.0.0.0/8`, `::1`).
        public static func isLoopback(_ host: String) -> Bool {
            host == "::1" || host.hasPrefix("127.")
        }
    }
}
