/// The loaded, checked settings of one service. Read values with
/// `configuration[setting]`.
public struct ServiceConfiguration: Sendable {
    /// The variable prefix (`MAILWAKE_OUTPOST_`).
    public let prefix: String
    let values: [String: any Sendable]
    let sources: [String: ConfigurationSource]
    let secretNames: Set<String>
    /// Things worth a warning at start (unknown variables in the environment,
    /// a config file holding secrets that others can read). Never values.
    public let warnings: [String]

    init(prefix: String, values: [String: any Sendable], sources: [String: ConfigurationSource], secretNames: Set<String>,
         warnings: [String]) {
        self.prefix = prefix
        self.values = values
        self.sources = sources
        self.secretNames = secretNames
        self.warnings = warnings
    }

    /// The value of `setting` (which must be part of the spec this was loaded with).
    public subscript<Value>(setting: ConfigurationSetting<Value>) -> Value {
        guard let value = values[setting.name] else {
            preconditionFailure("\(prefix)\(setting.name) is not in this service's ConfigurationSpec")
        }
        guard let typed = value as? Value else {
            preconditionFailure("\(prefix)\(setting.name) was loaded with another type")
        }
        return typed
    }

    /// Where the value of `setting` came from.
    public func source<Value>(of setting: ConfigurationSetting<Value>) -> ConfigurationSource? { sources[setting.name] }

    /// One line per setting for a start-up log or `config check`:
    /// `MAILWAKE_OUTPOST_HISTORY_DAYS=30 (default)`, secrets as `(secret)`.
    public var summary: [String] {
        sources.keys.sorted().map { name in
            let shown: String
            if secretNames.contains(name) {
                shown = "(secret)"
            } else if let v = values[name], let text = Self.render(v) {
                shown = "\"" + ConfigurationError.displayable(text) + "\""
            } else {
                shown = "(not set)"
            }
            return "\(prefix)\(name)=\(shown) (\(sources[name]!))"
        }
    }

    /// The value as it would be written in configuration; nil for an unset optional.
    static func render(_ value: Any) -> String? {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first else { return nil }
            return render(wrapped.value)
        }
        switch value {
        case let d as Duration: return ConfigurationSetting<Duration>.format(d)
        case let list as [String]: return list.joined(separator: ",")
        default: return String(describing: value)
        }
    }
}
