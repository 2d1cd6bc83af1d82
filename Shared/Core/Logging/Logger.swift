/// A structured logger: JSON lines with `ts`, `level`, `msg`, `service` and
/// metadata such as `request_id` (DESIGN.md §4).
///
/// Loggers are values: `with(_:_:)` returns a copy carrying more metadata.
/// Libraries accept a logger from their caller and never build one. Never log
/// mail content, credentials, keys, tokens or ciphertext.
public struct Logger: Sendable {
    /// The service name written in every line.
    public let service: String
    /// Records below this level are dropped.
    public var level: LogLevel
    /// Metadata added to every record.
    public var metadata: [String: LogValue]
    let sink: any LogSink

    /// - Parameters:
    ///   - service: the service or tool name.
    ///   - level: the minimum level, `.info` by default.
    ///   - sink: where lines go, stderr by default.
    public init(service: String, level: LogLevel = .info, sink: any LogSink = JSONLinesLogSink.standardError) {
        self.service = service
        self.level = level
        self.metadata = [:]
        self.sink = sink
    }

    /// A copy with `key` set in its metadata.
    public func with(_ key: String, _ value: LogValue) -> Logger {
        var copy = self
        copy.metadata[key] = value
        return copy
    }

    /// Writes a record when `level` is enabled.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: LogValue] = [:]) {
        guard level >= self.level else { return }
        var merged = self.metadata
        for (k, v) in metadata() { merged[k] = v }
        sink.write(LogRecord(timestamp: WallClock.fractionalSeconds(), level: level, message: message(), service: service,
                             metadata: merged))
    }

    public func trace(_ message: @autoclosure () -> String,
                      _ metadata: @autoclosure () -> [String: LogValue] = [:]) { log(.trace, message(), metadata()) }
    public func debug(_ message: @autoclosure () -> String,
                      _ metadata: @autoclosure () -> [String: LogValue] = [:]) { log(.debug, message(), metadata()) }
    public func info(_ message: @autoclosure () -> String,
                     _ metadata: @autoclosure () -> [String: LogValue] = [:]) { log(.info, message(), metadata()) }
    public func notice(_ message: @autoclosure () -> String,
                       _ metadata: @autoclosure () -> [String: LogValue] = [:]) { log(.notice, message(), metadata()) }
    public func warning(_ message: @autoclosure () -> String,
                        _ metadata: @autoclosure () -> [String: LogValue] = [:]) { log(.warning, message(), metadata()) }
    public func error(_ message: @autoclosure () -> String,
                      _ metadata: @autoclosure () -> [String: LogValue] = [:]) { log(.error, message(), metadata()) }
    public func critical(_ message: @autoclosure () -> String,
                         _ metadata: @autoclosure () -> [String: LogValue] = [:]) { log(.critical, message(), metadata()) }

    /// A logger that drops everything (for tools and tests that do not care).
    public static let disabled = Logger(service: "disabled", level: .critical, sink: NullLogSink())
}

/// Drops every record.
struct NullLogSink: LogSink {
    func write(_ record: LogRecord) {}
}
