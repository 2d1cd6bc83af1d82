/// One typed setting: `MAILWAKE_<SERVICE>_<NAME>` with a parser, a default and help.
///
/// Make them with the constructors (`.int("ADMIN_PORT", default: 9090, range: 1...65535, help: ...)`,
/// `.string`, `.bool`, `.duration`, `.url`, `.origin`, `.choice`, `.existingFile`,
/// `.list`, `.logLevel`), list them in a `ConfigurationSpec`, and read the
/// loaded value with `configuration[setting]`.
public struct ConfigurationSetting<Value: Sendable>: AnyConfigurationSetting {
    /// What happens when the setting is not given.
    enum Fallback: Sendable {
        /// This raw text, parsed like a given value (so defaults are checked too).
        case raw(String)
        /// This value (used by optional settings: `nil`).
        case value(Value)
        /// Start fails.
        case required
    }

    public let name: String
    public let help: String
    public let valueDescription: String
    public let isSecret: Bool
    let fallback: Fallback
    let parser: @Sendable (String) throws(ConfigurationValueError) -> Value

    init(
        name: String, help: String, valueDescription: String, isSecret: Bool, fallback: Fallback,
        parser: @escaping @Sendable (String) throws(ConfigurationValueError) -> Value
    ) {
        precondition(Self.isValidName(name), "setting names are upper-case letters, digits and underscores: \(name)")
        self.name = name
        self.help = help
        self.valueDescription = valueDescription
        self.isSecret = isSecret
        self.fallback = fallback
        self.parser = parser
    }

    public var isRequired: Bool {
        if case .required = fallback { return true }
        return false
    }

    public var defaultDescription: String {
        switch fallback {
        case .raw(let raw): isSecret ? "(hidden)" : (raw.isEmpty ? "(empty)" : raw)
        case .value: "(not set)"
        case .required: "(required)"
        }
    }

    /// Parses one raw value.
    public func parse(_ raw: String) throws(ConfigurationValueError) -> Value { try parser(raw) }

    public func parseAny(_ raw: String) throws(ConfigurationValueError) -> any Sendable { try parser(raw) }

    public func fallbackAny() throws(ConfigurationValueError) -> (any Sendable)? {
        switch fallback {
        case .raw(let raw): return try parser(raw)
        case .value(let v): return v
        case .required: return nil
        }
    }

    /// The same setting, optional: when not given its value is `nil`
    /// (and an empty value also means `nil`).
    public func optional() -> ConfigurationSetting<Value?> {
        let parser = self.parser
        return ConfigurationSetting<Value?>(
            name: name, help: help, valueDescription: valueDescription, isSecret: isSecret, fallback: .value(nil),
            parser: { (raw: String) throws(ConfigurationValueError) -> Value? in raw.isEmpty ? nil : try parser(raw) })
    }

    /// The same setting marked secret.
    public func secret() -> ConfigurationSetting<Value> {
        ConfigurationSetting(name: name, help: help, valueDescription: valueDescription, isSecret: true, fallback: fallback,
                             parser: parser)
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("A"..."Z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
