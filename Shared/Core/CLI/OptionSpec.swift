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

    /// - Parameters:
    ///   - name: lower-case letters, digits and hyphens, beginning with a letter (`isValidName`).
    public init(_ name: String, value valueName: String? = nil, required isRequired: Bool = false, help: String) {
        precondition(Self.isValidName(name[...]), "an option's name is lower-case letters, digits and hyphens: \(name)")
        self.name = name
        self.valueName = valueName
        self.help = help
        self.isRequired = isRequired
    }

    /// Whether `name` can name an option: a lower-case letter, then lower-case letters, digits and hyphens. Anything
    /// else after two dashes on a command line is a value (base64url identifiers hold capitals and underscores).
    static func isValidName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return name.utf8.allSatisfy { c in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
                || c == UInt8(ascii: "-")
        }
    }
}
