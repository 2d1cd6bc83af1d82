#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One log event as handed to a sink.
public struct LogRecord: Sendable {
    /// Unix time in seconds with a fraction.
    public var timestamp: Double
    public var level: LogLevel
    public var message: String
    /// The service name (`relay`, `accounts`, `outpost`, or a tool's name).
    public var service: String
    /// Logger metadata merged with the call's metadata (the call wins).
    public var metadata: [String: LogValue]

    /// The record as one JSON line (without the newline): `ts`, `level`,
    /// `msg`, `service`, then the metadata keys in sorted order.
    public var jsonLine: String {
        var out = "{\"ts\":\"" + Self.iso8601(timestamp) + "\",\"level\":\"" + level.description + "\",\"msg\":"
        Self.appendQuoted(message, to: &out)
        out += ",\"service\":"
        Self.appendQuoted(service, to: &out)
        for key in metadata.keys.sorted() where !["ts", "level", "msg", "service"].contains(key) {
            out += ","
            Self.appendQuoted(key, to: &out)
            out += ":"
            switch metadata[key]! {
            case .string(let s): Self.appendQuoted(s, to: &out)
            case .int(let i): out += String(i)
            case .double(let d): out += d.isFinite ? String(d) : "null"
            case .bool(let b): out += b ? "true" : "false"
            }
        }
        return out + "}"
    }

    /// `2026-11-29T13:45:00.123Z`.
    static func iso8601(_ t: Double) -> String {
        var seconds = time_t(t.rounded(.down))
        let millis = Int((t - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ n: Int32, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T\(pad(parts.tm_hour, 2))" +
               ":\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }

    static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
