#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Where log records go.
public protocol LogSink: Sendable {
    func write(_ record: LogRecord)
}

/// Writes JSON lines to a file descriptor (stderr by default), one `write`
/// per line under a lock so lines from several threads never interleave.
public final class JSONLinesLogSink: LogSink {
    /// The process-wide stderr sink.
    public static let standardError = JSONLinesLogSink(fileDescriptor: 2)

    private let fd: Int32
    private let lock = Mutex(())

    public init(fileDescriptor: Int32) { fd = fileDescriptor }

    public func write(_ record: LogRecord) {
        let bytes = Array((record.jsonLine + "\n").utf8)
        lock.withLock { _ in _ = FileDescriptorIO.writeAll(fd, bytes) }
    }
}

/// Keeps records in memory, for tests that assert what was (and was not) logged.
public final class MemoryLogSink: LogSink {
    private let records = Mutex<[LogRecord]>([])

    public init() {}

    public func write(_ record: LogRecord) { records.withLock { $0.append(record) } }

    /// Everything written so far.
    public var all: [LogRecord] { records.withLock { $0 } }

    /// Everything written so far, as JSON lines.
    public var lines: [String] { all.map(\.jsonLine) }
}
