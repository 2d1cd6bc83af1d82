import CCurlShims
import Foundation
public import MailwakeCore
import MailwakeHTTPTypes
import MailwakeProtocol

/// An HTTP/1.1 and HTTP/2 client over libcurl's multi interface.
///
/// One multi handle per client, owned by one thread that runs
/// `curl_multi_poll`; `execute` hands requests to it through a lock and
/// `curl_multi_wakeup`, and the thread resumes the caller when the transfer
/// ends. Concurrent requests to one HTTPS origin are multiplexed as HTTP/2
/// streams over one connection when the server speaks HTTP/2 (requests wait
/// for the first connection to learn that instead of opening more).
///
/// Create one client per purpose (APNs, service calls, webhooks) and keep it:
/// connections are reused across requests. Call `shutdown()` when done (the
/// client also shuts down when released).
///
/// Request bodies and headers are never logged; logs name the origin
/// (`scheme://host:port`), never the path.
public final class HTTPClient: Sendable {
    public let configuration: Configuration
    /// The CA file handed to libcurl: `configuration.caFile`, else the
    /// system bundle when there is one.
    private let trustFile: String?
    private let engine: CurlEngine
    private let transfers: TransferPool
    private let logger: Logger

    /// - Parameters:
    ///   - configuration: validated here; a bad setting throws `.invalidConfiguration`.
    ///   - logger: receives a debug line per request and an info line per failure.
    ///   - metrics: when given, `<prefix>_requests_total{client,outcome}`,
    ///     `<prefix>_request_duration_seconds{client}` and `<prefix>_in_flight{client}`.
    public init(configuration: Configuration = Configuration(), logger: Logger = .disabled, metrics: MetricsRegistry? = nil) throws {
        try configuration.validate()
        self.configuration = configuration
        trustFile = configuration.caFile ?? Self.systemBundle
        self.logger = logger.with("http_client", .string(configuration.name))
        if configuration.httpVersion != .http1_1 && mw_curl_supports_http2() == 0 {
            logger.warning("libcurl was built without HTTP/2; requests will use HTTP/1.1",
                           ["curl": .string(String(cString: mw_curl_version()))])
        }
        engine = try CurlEngine(configuration: configuration, logger: self.logger, metrics: metrics)
        // As many as run at once on a few connections; a webhook client's bursts need no more.
        let runAtOnce = min(configuration.maxConnectionsPerHost, 256) * min(configuration.maxConcurrentStreams, 256)
        transfers = TransferPool(capacity: min(256, runAtOnce))
        try engine.start(name: configuration.name)
    }

    deinit { engine.shutdown() }

    /// Sends `request` and returns the response, whatever its status.
    ///
    /// Throws `HTTPClientError` when no complete response arrived, and
    /// `CancellationError` when the calling task is cancelled (the transfer is
    /// abandoned on the owner thread; an HTTP/2 connection stays usable).
    ///
    /// - Parameter logger: overrides the client's logger for this request
    ///   (to carry a `request_id`).
    public func execute(_ request: Request, logger: Logger? = nil) async throws -> Response {
        try Task.checkCancellation()
        let id = engine.nextID()
        let transfer = try makeTransfer(request, id: id)
        let logger = logger.map { $0.with("http_client", .string(configuration.name)) } ?? self.logger
        let origin = Self.origin(of: request.url)
        let timeout = request.timeout ?? configuration.totalTimeout
        let engine = self.engine
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let job = Job(transfer: transfer, continuation: continuation, method: request.method, origin: origin, logger: logger,
                              timeout: timeout)
                guard engine.submit(job) else {
                    continuation.resume(throwing: HTTPClientError(.shutdown, "the HTTP client was shut down"))
                    return
                }
                // A cancellation that raced ahead of the submission found
                // nothing to cancel; the flag is sticky, so ask again.
                if Task.isCancelled { engine.cancel(id) }
            }
        } onCancel: {
            engine.cancel(id)
        }
    }

    /// Fails every pending request with `.shutdown`, closes connections and
    /// joins the owner thread. Later `execute` calls throw `.shutdown`.
    /// Idempotent. Blocks briefly (until the owner thread has stopped).
    public func shutdown() {
        engine.shutdown()
    }

    /// Debian's `ca-certificates` bundle: one file (about 17 ms to load per
    /// new connection here) instead of libcurl's default directory (about
    /// 65 ms), both loaded on the owner thread.
    static let systemBundle: String? = {
        let path = "/etc/ssl/certs/ca-certificates.crt"
        return FileManager.default.isReadableFile(atPath: path) ? path : nil
    }()

    // MARK: building a transfer

    private func makeTransfer(_ request: Request, id: UInt64) throws -> CurlTransfer {
        try Self.validate(request)
        let maxBody = request.maxResponseBytes ?? configuration.maxResponseBytes
        guard maxBody >= 0 else { throw HTTPClientError(.invalidRequest, "maxResponseBytes must not be negative") }
        let timeout = request.timeout ?? configuration.totalTimeout
        guard timeout > .zero else { throw HTTPClientError(.invalidRequest, "timeout must be positive") }

        let transfer = try CurlTransfer(id: id, maxBody: maxBody, maxHeaderBytes: configuration.maxResponseHeaderBytes, pool: transfers)
        var options = TransferOptions(transfer)
        setConnection(&options, request, timeout: timeout, maxBody: maxBody)
        setTrust(&options)
        setRedirects(&options, request)
        setMethodAndBody(&options, request)
        try setHeaders(&options, request)
        try options.checkAccepted()
        return transfer
    }

    /// URL, protocol version, timeouts, the response size limit and the user agent.
    private func setConnection(_ options: inout TransferOptions, _ request: Request, timeout: Duration, maxBody: Int) {
        options.set(CURLOPT_URL, request.url)
        options.set(CURLOPT_PROTOCOLS_STR, "http,https")
        switch configuration.httpVersion {
        case .http2: options.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        case .http1_1: options.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        case .http2PriorKnowledge: options.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
        options.set(CURLOPT_PIPEWAIT, 1)
        options.set(CURLOPT_TCP_KEEPALIVE, 1)
        options.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        options.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
        // Fails early on a Content-Length over the limit (the write callback
        // enforces it for the rest); not for HEAD, whose Content-Length
        // describes a body that never comes.
        if request.method != .head { options.set(CURLOPT_MAXFILESIZE_LARGE, maxBody) }
        options.set(CURLOPT_USERAGENT, configuration.userAgent)
    }

    /// Which servers are trusted and reached: the CA file, proxies, public addresses only, pinned keys.
    private func setTrust(_ options: inout TransferOptions) {
        if let caFile = trustFile {
            // Only this file: Debian's libcurl also loads its built-in CA
            // directory (/etc/ssl/certs) unless CAPATH is cleared, which would
            // trust every public CA besides a private one, and parses ~280
            // files on the owner thread for every new connection.
            options.set(CURLOPT_CAINFO, caFile)
            options.record("option CAPATH", mw_curl_set_string(options.transfer.easy, CURLOPT_CAPATH, nil))
        }
        if !configuration.usesEnvironmentProxy || configuration.publicAddressesOnly {
            // An empty proxy overrides http_proxy, https_proxy, all_proxy… from the environment.
            options.set(CURLOPT_PROXY, "")
        }
        if configuration.publicAddressesOnly {
            options.record("option PREREQFUNCTION", mw_transfer_public_addresses_only(options.transfer.raw))
        }
        if !configuration.pinnedPublicKeys.isEmpty {
            options.set(CURLOPT_PINNEDPUBLICKEY, configuration.pinnedPublicKeys.joined(separator: ";"))
            if configuration.trustPinnedKeyAlone {
                // The pin is the trust: a self-signed server (an outpost) is accepted by its key alone.
                options.set(CURLOPT_SSL_VERIFYPEER, 0)
                options.set(CURLOPT_SSL_VERIFYHOST, 0)
            }
        }
    }

    private func setRedirects(_ options: inout TransferOptions, _ request: Request) {
        if request.followRedirects ?? configuration.followRedirects {
            options.set(CURLOPT_FOLLOWLOCATION, 1)
            options.set(CURLOPT_MAXREDIRS, configuration.maxRedirects)
            options.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        } else {
            options.set(CURLOPT_FOLLOWLOCATION, 0)
        }
    }

    private func setMethodAndBody(_ options: inout TransferOptions, _ request: Request) {
        switch request.method {
        case .get where request.body == nil:
            options.set(CURLOPT_HTTPGET, 1)
        case .head where request.body == nil:
            options.set(CURLOPT_NOBODY, 1)
        case .post:
            break
        default:
            options.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        let raw = options.transfer.raw
        if let body = request.body {
            options.record("request body", body.withUnsafeBytes { mw_transfer_set_body(raw, $0.baseAddress, $0.count) })
        } else if request.method == .post {
            options.record("request body", mw_transfer_set_body(raw, nil, 0))
        }
    }

    /// The request's header fields, minus what curl would add on its own.
    private func setHeaders(_ options: inout TransferOptions, _ request: Request) throws {
        var lines: [String] = []
        lines.reserveCapacity(request.headers.count + 2)
        for field in request.headers {
            lines.append(field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value)
        }
        // Suppress what curl would add on its own: a form Content-Type for
        // bodies, and `Expect: 100-continue` (a 1 s stall with servers that ignore it).
        if request.body != nil || request.method == .post, request.headers["content-type"] == nil { lines.append("Content-Type:") }
        if request.headers["expect"] == nil { lines.append("Expect:") }
        let raw = options.transfer.raw
        for line in lines {
            guard line.withCString({ mw_transfer_add_header(raw, $0) }) == 0 else {
                throw HTTPClientError(.other, "out of memory building request headers")
            }
        }
        options.record("request headers", mw_transfer_apply_headers(raw))
    }

    /// Rejects what would be unsafe or ambiguous on the wire: header
    /// injection (CR, LF, NUL), names that are not tokens, framing headers
    /// curl computes itself, and URLs with spaces or control characters.
    static func validate(_ request: Request) throws {
        func bad(_ why: String) -> HTTPClientError { HTTPClientError(.invalidRequest, why) }
        guard !request.method.rawValue.isEmpty,
              request.method.rawValue.utf8.allSatisfy(isTokenByte) else { throw bad("method is not an HTTP token") }
        let url = request.url.utf8
        guard !url.isEmpty,
              !request.url.withContiguousUTF8({ $0.contains(where: { $0 <= 0x20 || $0 == 0x7F }) })
        else { throw bad("URL is empty or contains spaces or control characters") }
        guard hasPrefixIgnoringASCIICase(url, "https://") || hasPrefixIgnoringASCIICase(url, "http://") else {
            throw bad("URL scheme must be https or http")
        }
        for field in request.headers {
            guard !field.name.isEmpty, field.name.withContiguousUTF8({ $0.allSatisfy(isTokenByte) }) else {
                throw bad("header name is not an HTTP token")
            }
            // Name only: values may be secrets.
            guard !field.value.withContiguousUTF8({ $0.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) }) else {
                throw bad("header \(field.name) has a control character in its value")
            }
            let name = field.name.utf8
            guard !(name.count == 14 && hasPrefixIgnoringASCIICase(name, "content-length")),
                  !(name.count == 17 && hasPrefixIgnoringASCIICase(name, "transfer-encoding"))
            else { throw bad("header \(field.name) is set by the client itself") }
        }
    }

    /// Whether `bytes` starts with the lowercase ASCII `prefix`, ignoring ASCII case (no allocation).
    private static func hasPrefixIgnoringASCIICase(_ bytes: String.UTF8View, _ prefix: StaticString) -> Bool {
        let p = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        var i = bytes.startIndex
        for expected in p {
            guard i != bytes.endIndex else { return false }
            let b = bytes[i]
            guard (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b) == expected else { return false }
            i = bytes.index(after: i)
        }
        return true
    }

    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    static func milliseconds(_ d: Duration) -> Int {
        let (s, atto) = d.components
        let ms = s.multipliedReportingOverflow(by: 1000)
        guard !ms.overflow else { return Int.max }
        return max(1, Int(ms.partialValue + atto / 1_000_000_000_000_000))
    }

    /// `scheme://host[:port]` of a URL, without user info, path or query.
    static func origin(of url: String) -> String {
        let bytes = Array(url.utf8)
        var schemeEnd: Int?
        if bytes.count >= 3 {
            for i in 0...(bytes.count - 3) where bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: "/")
                && bytes[i + 2] == UInt8(ascii: "/") {
                schemeEnd = i + 3
                break
            }
        }
        guard let schemeEnd else { return "?" }
        var end = schemeEnd
        var start = schemeEnd
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
            if bytes[end] == UInt8(ascii: "@") { start = end + 1 }
            end += 1
        }
        let scheme = bytes[..<schemeEnd].map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        return String(decoding: scheme + bytes[start..<end], as: UTF8.self)
    }
}

/// Options being set on one transfer's easy handle: keeps the first one libcurl refuses, reported once all are set.
private struct TransferOptions {
    let transfer: CurlTransfer
    private var refused: (what: String, code: CURLcode)?

    init(_ transfer: CurlTransfer) { self.transfer = transfer }

    mutating func set(_ option: CURLoption, _ value: Int) {
        record("option \(option.rawValue)", mw_curl_set_long(transfer.easy, option, value))
    }

    mutating func set(_ option: CURLoption, _ value: String) {
        // libcurl copies string options; the Swift string may go away after the call.
        let easy = transfer.easy
        record("option \(option.rawValue)", value.withCString { mw_curl_set_string(easy, option, $0) })
    }

    /// Keeps `rc` when it is the first refusal (`what` is only built for one).
    mutating func record(_ what: @autoclosure () -> String, _ rc: CURLcode) {
        if rc != CURLE_OK, refused == nil { refused = (what(), rc) }
    }

    /// Throws for the first refusal: `.other` for an option this libcurl lacks, else `.invalidRequest`.
    func checkAccepted() throws {
        guard let (what, rc) = refused else { return }
        let code: HTTPClientError.Code = rc == CURLE_UNKNOWN_OPTION || rc == CURLE_NOT_BUILT_IN ? .other : .invalidRequest
        throw HTTPClientError(code, "libcurl refused \(what): \(String(cString: curl_easy_strerror(rc)))", curlCode: Int(rc.rawValue))
    }
}
