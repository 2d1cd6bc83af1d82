import Foundation
import CCurlShims
import MailwakeCore

extension HTTPClient {
    /// Settings of one client. Every setting has a default suitable for
    /// service-to-service HTTPS; see each property.
    public struct Configuration: Sendable {
        /// HTTP versions to use. Default `.http2`: HTTP/2 over TLS when the
        /// server offers it (ALPN), with multiplexing of concurrent requests
        /// over one connection; HTTP/1.1 otherwise.
        public var httpVersion: VersionPreference = .http2
        /// Time allowed to establish TCP and TLS. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// Time allowed for a whole request, connection included (per-request
        /// override: `Request.timeout`). Default 30 s.
        public var totalTimeout: Duration = .seconds(30)
        /// Largest response body accepted; larger ones fail with
        /// `.responseTooLarge`. Default 1 MiB.
        public var maxResponseBytes: Int = 1 << 20
        /// Largest response header block accepted. Default 64 KiB.
        public var maxResponseHeaderBytes: Int = 64 << 10
        /// PEM file of CA certificates to trust instead of the system store
        /// (private deployments); nothing else is trusted then. Default `nil`:
        /// the system trust store (`/etc/ssl/certs/ca-certificates.crt` from
        /// Debian's `ca-certificates` when present, else libcurl's default).
        /// The trust store is read for every new connection, on the client's
        /// thread: a small file keeps that cheap.
        public var caFile: String?
        /// Accepted server public keys, each `sha256//<base64 of the SHA-256 of
        /// the DER SubjectPublicKeyInfo>` (curl's format, as `openssl pkey
        /// -pubout -outform DER | openssl dgst -sha256 -binary | base64`).
        /// When not empty, a server whose key matches none fails with
        /// `.pinMismatch`, in addition to normal certificate verification.
        /// Default empty (no pinning).
        public var pinnedPublicKeys: [String] = []
        /// With `pinnedPublicKeys`, trust a server by its pinned key alone:
        /// no chain or host name check (how the App reaches an outpost with a
        /// self-signed certificate, PROTOCOL.md §10). Ignored without pins.
        /// Default `false`.
        public var trustPinnedKeyAlone: Bool = false
        /// Refuse to talk to anything but public unicast addresses (loopback,
        /// private, link-local, unique-local, CGNAT, multicast refused): the
        /// guard against server-side request forgery for user-supplied URLs
        /// (webhooks, self-hosted push servers). Checked on the connected
        /// address, after DNS. A refused request fails with `.refusedAddress`.
        /// Default `false`.
        public var publicAddressesOnly: Bool = false
        /// Use a proxy named in the environment (`http_proxy`, `https_proxy`,
        /// `all_proxy`, as libcurl does). Default `true`. Always off with
        /// `publicAddressesOnly`: through a proxy the address check would see
        /// the proxy, not the target, and the proxy would see the request.
        public var usesEnvironmentProxy: Bool = true
        /// Follow 3xx redirects (to http/https only). Default `false`: a 3xx is
        /// returned as the response.
        public var followRedirects: Bool = false
        /// Redirects followed at most when `followRedirects` is on. Default 5.
        public var maxRedirects: Int = 5
        /// Connections per host at most; further requests wait for a free
        /// connection or HTTP/2 stream. Default 8.
        public var maxConnectionsPerHost: Int = 8
        /// HTTP/2 streams used concurrently on one connection at most; beyond
        /// it libcurl opens another connection (up to `maxConnectionsPerHost`)
        /// or queues. Keep it at or below the server's
        /// SETTINGS_MAX_CONCURRENT_STREAMS: libcurl 7.88 may open this many
        /// streams before the server's SETTINGS arrive, the excess is refused
        /// (REFUSED_STREAM), and libcurl retries those on new connections, a
        /// few times at most (then `.connectionClosed`). Default 100.
        public var maxConcurrentStreams: Int = 100
        /// `User-Agent` sent unless a request sets one. Default `mailwake/<version>`.
        public var userAgent: String = "mailwake/\(MailwakeVersion.current)"
        /// A short name for logs and the `client` metrics label. Default `default`.
        public var name: String = "default"
        /// Prefix of the metric names (`<prefix>_requests_total`, ...). Default
        /// `mailwake_http_client`; services may use `mailwake_<service>_<client>`.
        public var metricsPrefix: String = "mailwake_http_client"

        public init() {}

        /// The curl pin string for a raw SHA-256 of a SubjectPublicKeyInfo.
        public static func pin(spkiSHA256 digest: [UInt8]) -> String {
            "sha256//" + Data(digest).base64EncodedString()
        }

        /// Checks the settings; throws `.invalidConfiguration` naming the first bad one.
        public func validate() throws {
            func bad(_ what: String) -> HTTPClientError { HTTPClientError(.invalidConfiguration, what) }
            guard connectTimeout > .zero else { throw bad("connectTimeout must be positive") }
            guard totalTimeout > .zero else { throw bad("totalTimeout must be positive") }
            guard maxResponseBytes >= 0 else { throw bad("maxResponseBytes must not be negative") }
            guard maxResponseHeaderBytes >= 256 else { throw bad("maxResponseHeaderBytes must be at least 256") }
            guard maxRedirects >= 0 else { throw bad("maxRedirects must not be negative") }
            guard maxConnectionsPerHost >= 1 else { throw bad("maxConnectionsPerHost must be at least 1") }
            guard maxConcurrentStreams >= 1 else { throw bad("maxConcurrentStreams must be at least 1") }
            guard !userAgent.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { throw bad("userAgent contains control characters") }
            if let caFile {
                guard FileManager.default.isReadableFile(atPath: caFile) else { throw bad("caFile \(caFile) is not a readable file") }
            }
            for pin in pinnedPublicKeys {
                guard pin.hasPrefix("sha256//"), let digest = Data(base64Encoded: String(pin.dropFirst(8))), digest.count == 32 else {
                    throw bad("pinnedPublicKeys entry is not sha256//<base64 of 32 bytes>")
                }
            }
        }
    }
}

extension HTTPClient {
    /// True when `address` (IPv4 or IPv6 text) is a public unicast address,
    /// the test `publicAddressesOnly` applies to connected addresses.
    public static func isPublicAddress(_ address: String) -> Bool { mw_ip_is_private(address) == 0 }
}
