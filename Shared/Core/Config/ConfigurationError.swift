/// A configuration that cannot be used: one line naming the key, where the
/// value came from and what is wrong, e.g.
///
///     MAILWAKE_OUTPOST_HISTORY_DAYS="99999" (environment): must be an integer from 1 to 3650
///
/// The value is shown only for settings that are not secret.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The full key (`MAILWAKE_OUTPOST_HISTORY_DAYS`), or `--config` for the file itself.
    public let key: String
    public let reason: String
    /// Where the value came from, when it came from somewhere.
    public let source: ConfigurationSource?
    /// The offending value, already cleaned for one line; nil for secrets.
    let shownValue: String?

    public init(key: String, reason: String, source: ConfigurationSource? = nil, shownValue: String? = nil) {
        self.key = key
        self.reason = reason
        self.source = source
        self.shownValue = shownValue
    }

    public var description: String {
        var out = key
        if let shownValue { out += "=\"" + shownValue + "\"" }
        if let source { out += " (\(source))" }
        return Self.oneLine("configuration: " + out + ": " + reason)
    }

    /// The value made safe for one log line: control characters become `?`, long values are cut.
    static func displayable(_ value: String, limit: Int = 80) -> String {
        var out = ""
        var count = 0
        for scalar in value.unicodeScalars {
            if count == limit { return out + "…" }
            let isControl = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x2028...0x2029).contains(scalar.value)
            if scalar == "\"" || scalar == "\\" {
                out += "\\" + String(scalar)
            } else {
                out.unicodeScalars.append(isControl ? "?" : scalar)
            }
            count += 1
        }
        return out
    }

    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
    }
}
