public import MailwakeHTTPTypes

extension HTTPClient {
    /// The HTTP versions the client may use.
    public enum VersionPreference: Sendable, Hashable {
        /// HTTP/2 over TLS when the server offers it through ALPN, otherwise
        /// HTTP/1.1; HTTP/1.1 for `http://` URLs. The default.
        case http2
        /// HTTP/1.1 only.
        case http1_1
        /// HTTP/2 without negotiation (h2c for `http://`, for servers known to speak it).
        case http2PriorKnowledge
    }

    /// The HTTP version a response arrived with.
    public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
        case http1_0, http1_1, http2, http3, unknown

        public var description: String {
            switch self {
            case .http1_0: "HTTP/1.0"
            case .http1_1: "HTTP/1.1"
            case .http2: "HTTP/2"
            case .http3: "HTTP/3"
            case .unknown: "unknown"
            }
        }
    }

    /// One request. Everything here is copied into libcurl-owned memory when
    /// `execute` starts; nothing Swift owns is referenced by curl afterwards.
    public struct Request: Sendable {
        public var method: HTTPMethod
        /// An absolute `https://` or `http://` URL (other schemes are refused).
        public var url: String
        /// Request headers, sent in this order. libcurl adds `Host`,
        /// `User-Agent` (unless given), `Accept: */*` (unless given) and
        /// `Content-Length`; it never adds `Content-Type` or `Expect` on its own.
        public var headers: HTTPHeaders
        /// The body; `nil` sends none (a POST without body sends `Content-Length: 0`).
        public var body: [UInt8]?
        /// Overrides `Configuration.totalTimeout` for this request.
        public var timeout: Duration?
        /// Overrides `Configuration.maxResponseBytes` for this request.
        public var maxResponseBytes: Int?
        /// Overrides `Configuration.followRedirects` for this request.
        public var followRedirects: Bool?

        public init(method: HTTPMethod = .get, url: String, headers: HTTPHeaders = [:], body: [UInt8]? = nil,
                    timeout: Duration? = nil, maxResponseBytes: Int? = nil, followRedirects: Bool? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeout = timeout
            self.maxResponseBytes = maxResponseBytes
            self.followRedirects = followRedirects
        }
    }

    /// A complete response (any status: 4xx and 5xx are responses, not errors).
    public struct Response: Sendable {
        public var status: HTTPStatus
        /// Response headers of the final response, in order, names as received
        /// (lower case over HTTP/2).
        public var headers: HTTPHeaders
        public var body: [UInt8]
        /// The negotiated HTTP version.
        public var version: HTTPVersion
        /// How the transfer went (connection reuse, timing).
        public var transfer: TransferInfo

        public init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8], version: HTTPVersion, transfer: TransferInfo) {
            self.status = status
            self.headers = headers
            self.body = body
            self.version = version
            self.transfer = transfer
        }
    }

    /// Connection and timing facts about one transfer, from libcurl.
    public struct TransferInfo: Sendable, Hashable {
        /// Connections libcurl opened for this transfer (0 when it reused one,
        /// for example another stream on an existing HTTP/2 connection).
        public var newConnections: Int
        /// The local port of the connection used (identifies the connection).
        public var localPort: Int
        /// Seconds from start to the end of the transfer.
        public var totalSeconds: Double
        /// Seconds until the TCP connection was made (0 when reused).
        public var connectSeconds: Double

        public init(newConnections: Int, localPort: Int, totalSeconds: Double, connectSeconds: Double) {
            self.newConnections = newConnections
            self.localPort = localPort
            self.totalSeconds = totalSeconds
            self.connectSeconds = connectSeconds
        }
    }
}

extension HTTPClient.Response {
    /// The body as UTF-8 text (invalid sequences replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}
