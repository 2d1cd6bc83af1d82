/// One `--name [VALUE]` option a command accepts.
public struct OptionSpec: Sendable, Hashable {
    /// The long name without dashes, e.g. `out`.
    public var name: String
    /// The value placeholder (`FILE`), or nil for a flag without a value.
    public var valueName: String?
    /// One line of help.
    public var help: String
    /// Whether the command fails with a usage error when it is missing.
    public var isRequired: Bool

    public init(_ name: String, value valueName: String? = nil, required isRequired: Bool = false, help: String) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.isRequired = isRequired
    }
}
