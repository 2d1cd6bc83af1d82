import CTLSStreamShims
import Synchronization

/// A TCP connection, optionally upgraded to TLS with the certificate and
/// host name verified, read and written with timeouts by one thread and
/// cancellable from any other.
// Safe to share: only the owning thread reads and writes the C stream, and cancel()/close() (any thread) take the lock, so a freed stream
// is never cancelled.
public final class TLSStream: @unchecked Sendable {
    private let handle: OpaquePointer
    private let state = Mutex<(closed: Bool, cancelled: Bool)>((false, false))

    /// Why a stream operation did not complete.
    public enum Failure: Error, Sendable, Equatable {
        case io(String)
        case timedOut
        case cancelled
    }

    /// Connects to `host`:`port` in plain TCP.
    public init(host: String, port: UInt16, timeout: Duration) throws(Failure) {
        guard let handle = mw_tls_stream_new() else { throw .io("out of memory or file descriptors") }
        self.handle = handle
        let rc = mw_tls_stream_connect(handle, host, String(port), Self.milliseconds(timeout))
        // On failure the instance is fully initialized, so deinit closes the handle.
        if rc != 0 { throw Self.failure(rc, handle) }
    }

    deinit { close() }

    /// Starts TLS, verifying the certificate against `serverName` and the
    /// system trust store, or `caFile` when given.
    public func startTLS(serverName: String, caFile: String?, timeout: Duration) throws(Failure) {
        try check(mw_tls_stream_start_tls(handle, serverName, caFile, Self.milliseconds(timeout)))
    }

    /// Up to `capacity` bytes; empty at the end of the stream.
    public func read(into buffer: inout [UInt8], capacity: Int, timeout: Duration?) throws(Failure) -> Int {
        if buffer.count < capacity { buffer = [UInt8](repeating: 0, count: capacity) }
        let n = buffer.withUnsafeMutableBytes { mw_tls_stream_read(handle, $0.baseAddress, capacity,
                                                                   timeout.map(Self.milliseconds) ?? -1) }
        if n < 0 { throw Self.failure(Int32(n), handle) }
        return n
    }

    public func write(_ bytes: [UInt8], timeout: Duration) throws(Failure) {
        try check(bytes.withUnsafeBytes { mw_tls_stream_write(handle, $0.baseAddress, $0.count, Self.milliseconds(timeout)) })
    }

    /// "TLSv1.3" etc., nil in plain TCP.
    public var tlsVersion: String? { mw_tls_stream_tls_version(handle).map { String(cString: $0) } }

    /// Makes the current and every later operation throw `.cancelled`. Any thread.
    public func cancel() {
        state.withLock { s in
            guard !s.closed, !s.cancelled else { return }
            s.cancelled = true
            mw_tls_stream_cancel(handle)
        }
    }

    /// Closes the connection. Idempotent.
    public func close() {
        state.withLock { s in
            guard !s.closed else { return }
            s.closed = true
            mw_tls_stream_close(handle)
        }
    }

    /// Frees the calling thread's OpenSSL state; for threads that used streams, before they end.
    public static func threadDone() { mw_tls_stream_thread_done() }

    private func check(_ rc: Int32) throws(Failure) {
        if rc != 0 { throw Self.failure(rc, handle) }
    }

    private static func failure(_ rc: Int32, _ handle: OpaquePointer) -> Failure {
        switch Int(rc) {
        case Int(MW_STREAM_TIMEOUT): .timedOut
        case Int(MW_STREAM_CANCELLED): .cancelled
        default: .io(String(cString: mw_tls_stream_error(handle)))
        }
    }

    private static func milliseconds(_ d: Duration) -> Int32 {
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, ms))
    }
}
