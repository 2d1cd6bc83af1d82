#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ConfigurationSetting where Value == String {
    /// Text. Empty is refused unless `allowEmpty`. `secret` keeps the value
    /// out of errors and summaries and allows `<KEY>_FILE`.
    public static func string(_ name: String, default value: String? = nil, secret: Bool = false, allowEmpty: Bool = false,
                              help: String) -> Self {
        Self(name: name, help: help, valueDescription: secret ? "text (secret)" : "text", isSecret: secret,
             fallback: value.map { .raw($0) } ?? .required) { (raw: String) throws(ConfigurationValueError) -> String in
            guard allowEmpty || !raw.isEmpty else { throw ConfigurationValueError("must not be empty") }
            return raw
        }
    }

    /// The path of a regular file that exists and is readable (checked at start, also for the default).
    public static func existingFile(_ name: String, default value: String? = nil, help: String) -> Self {
        Self(name: name, help: help, valueDescription: "path of an existing file", isSecret: false,
             fallback: value.map { .raw($0) } ?? .required) { (raw: String) throws(ConfigurationValueError) -> String in
            guard !raw.isEmpty else { throw ConfigurationValueError("must be the path of an existing file") }
            var info = stat()
            guard stat(raw, &info) == 0 else { throw ConfigurationValueError("names a file that does not exist") }
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw ConfigurationValueError("names something that is not a regular file") }
            guard access(raw, R_OK) == 0 else { throw ConfigurationValueError("names a file this process cannot read") }
            return raw
        }
    }
}

extension ConfigurationSetting where Value == Int {
    /// A decimal integer within `range`.
    public static func int(_ name: String, default value: Int? = nil, range: ClosedRange<Int>, help: String) -> Self {
        let reason = "must be an integer from \(range.lowerBound) to \(range.upperBound)"
        return Self(name: name, help: help, valueDescription: "integer \(range.lowerBound)–\(range.upperBound)", isSecret: false,
                    fallback: value.map { .raw(String($0)) } ?? .required) { (raw: String) throws(ConfigurationValueError) -> Int in
            guard let n = Int(raw), range.contains(n) else { throw ConfigurationValueError(reason) }
            return n
        }
    }
}

extension ConfigurationSetting where Value == Bool {
    /// `true`/`false` (also `yes`/`no`, `on`/`off`, `1`/`0`, any case).
    public static func bool(_ name: String, default value: Bool? = nil, help: String) -> Self {
        Self(name: name, help: help, valueDescription: "true or false", isSecret: false,
             fallback: value.map { .raw($0 ? "true" : "false") } ?? .required) { (raw: String) throws(ConfigurationValueError) -> Bool in
            switch raw.lowercased() {
            case "true", "yes", "on", "1": return true
            case "false", "no", "off", "0": return false
            default: throw ConfigurationValueError("must be true or false")
            }
        }
    }
}

extension ConfigurationSetting where Value == Duration {
    /// A number of seconds (`30`, `2.5`) within `range` seconds.
    public static func duration(_ name: String, default value: Duration? = nil, range: ClosedRange<Double> = 0...31_536_000,
                                help: String) -> Self {
        let reason = "must be a number of seconds from \(ConfigurationSetting.format(range.lowerBound)) to " +
                     "\(ConfigurationSetting.format(range.upperBound))"
        return Self(name: name, help: help, valueDescription: "seconds", isSecret: false,
                    fallback: value.map { .raw(ConfigurationSetting.format($0)) }
                        ?? .required) { (raw: String) throws(ConfigurationValueError) -> Duration in
            let parts = raw.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }),
                  let seconds = Double(raw), range.contains(seconds)
            else { throw ConfigurationValueError(reason) }
            return .milliseconds(Int64((seconds * 1000).rounded()))
        }
    }
}

extension ConfigurationSetting {
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }

    static func format(_ d: Duration) -> String {
        let (s, atto) = d.components
        return format(Double(s) + Double(atto) / 1e18)
    }
}

extension ConfigurationSetting where Value == ConfigURL {
    /// An absolute URL with one of `schemes` (`https` only by default).
    public static func url(_ name: String, default value: String? = nil, schemes: Set<String> = ["https"], secret: Bool = false,
                           help: String) -> Self {
        Self(name: name, help: help, valueDescription: schemes.sorted().joined(separator: "/") + " URL", isSecret: secret,
             fallback: value.map { .raw($0) } ?? .required) { (raw: String) throws(ConfigurationValueError) -> ConfigURL in
            try ConfigURL.parse(raw, schemes: schemes)
        }
    }

    /// An origin: `scheme://host[:port]`, no path.
    public static func origin(_ name: String, default value: String? = nil, schemes: Set<String> = ["https"], help: String) -> Self {
        Self(name: name, help: help, valueDescription: schemes.sorted().joined(separator: "/") + " origin (scheme://host[:port])",
             isSecret: false,
             fallback: value.map { .raw($0) } ?? .required) { (raw: String) throws(ConfigurationValueError) -> ConfigURL in
            try ConfigURL.parse(raw, schemes: schemes, originOnly: true)
        }
    }
}

extension ConfigurationSetting where Value == [String] {
    /// Comma-separated items; spaces around items and empty items are dropped.
    public static func list(_ name: String, default value: [String]? = nil, help: String) -> Self {
        Self(name: name, help: help, valueDescription: "comma-separated list", isSecret: false,
             fallback: value.map { .raw($0.joined(separator: ",")) }
                 ?? .required) { (raw: String) throws(ConfigurationValueError) -> [String] in
            raw.split(separator: ",").map { String($0.trimmingSpaces) }.filter { !$0.isEmpty }
        }
    }
}

extension ConfigurationSetting where Value == LogLevel {
    /// A log level name (`info`, `debug`...).
    public static func logLevel(_ name: String = "LOG_LEVEL", default value: LogLevel = .info,
                                help: String = "Lowest level of log lines written to stderr.") -> Self {
        let names = LogLevel.allCases.map(\.description).joined(separator: ", ")
        return Self(name: name, help: help, valueDescription: "one of \(names)", isSecret: false,
                    fallback: .raw(value.description)) { (raw: String) throws(ConfigurationValueError) -> LogLevel in
            guard let level = LogLevel(name: raw) else { throw ConfigurationValueError("must be one of \(names)") }
            return level
        }
    }
}

extension ConfigurationSetting where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the enum's raw values (exact spelling).
    public static func choice(_ name: String, default value: Value? = nil, help: String) -> Self {
        let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
        return Self(name: name, help: help, valueDescription: "one of \(names)", isSecret: false,
                    fallback: value.map { .raw($0.rawValue) } ?? .required) { (raw: String) throws(ConfigurationValueError) -> Value in
            guard let v = Value(rawValue: raw) else { throw ConfigurationValueError("must be one of \(names)") }
            return v
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
