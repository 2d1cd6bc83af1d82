/// A setting without its value type, as a `ConfigurationSpec` lists it.
public protocol AnyConfigurationSetting: Sendable {
    /// The name after the service prefix (`HISTORY_DAYS` for `MAILWAKE_OUTPOST_HISTORY_DAYS`).
    var name: String { get }
    /// What the setting does, one sentence or two.
    var help: String { get }
    /// What values it takes (`integer 1–65535`, `true or false`).
    var valueDescription: String { get }
    /// The default as documented (`9090`, `(required)`, `(not set)`).
    var defaultDescription: String { get }
    /// Never echoed in errors or summaries; may be given as `<KEY>_FILE`.
    var isSecret: Bool { get }
    /// True when the setting has no default and must be given.
    var isRequired: Bool { get }

    /// Parses a raw value (type-erased).
    func parseAny(_ raw: String) throws(ConfigurationValueError) -> any Sendable
    /// The value when the setting is not given, or nil when it is required.
    func fallbackAny() throws(ConfigurationValueError) -> (any Sendable)?
}
