/// A command of a command-line tool: its name, help and options.
public struct CommandSpec: Sendable {
    public var name: String
    /// One line shown in the tool's command list.
    public var summary: String
    /// Positional arguments as shown in the usage line, e.g. `B64U`.
    public var positionals: [String]
    public var options: [OptionSpec]
    /// Extra paragraphs shown under `--help`.
    public var discussion: String?

    public init(_ name: String, summary: String, positionals: [String] = [], options: [OptionSpec] = [], discussion: String? = nil) {
        self.name = name
        self.summary = summary
        self.positionals = positionals
        self.options = options
        self.discussion = discussion
    }

    /// The `--help` text of this command.
    public func help(tool: String) -> String {
        var usage = "usage: \(tool) \(name)"
        for p in positionals { usage += " \(p)" }
        for o in options {
            let item = o.valueName.map { "--\(o.name) \($0)" } ?? "--\(o.name)"
            usage += o.isRequired ? " \(item)" : " [\(item)]"
        }
        var lines = [usage, "", summary]
        if let discussion { lines += ["", discussion] }
        if !options.isEmpty {
            lines += ["", "options:"]
            let items = options.map { o in "--\(o.name)" + (o.valueName.map { " \($0)" } ?? "") }
            let width = items.map(\.count).max() ?? 0
            for (item, o) in zip(items, options) {
                lines.append("  " + item.padded(to: width + 2) + o.help)
            }
        }
        lines.append("  " + "--help".padded(to: 8) + "show this help")
        return lines.joined(separator: "\n")
    }

    /// Parses `args` (everything after the command name).
    ///
    /// Accepts `--name value`, `--name=value` and `--` to end options. An option
    /// that takes a value always consumes the next argument. Two dashes followed
    /// by what cannot be an option's name (see `OptionSpec.isValidName`) begin a
    /// value, not an option: a base64url identifier may start with `--`.
    public func parse(_ args: [String]) throws(UsageError) -> ParsedArguments {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var positionalValues: [String] = []
        var i = 0
        var optionsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            // After `--`, and for anything not starting with `--`, an argument is
            // positional (a single leading dash is allowed: base64url values and
            // negative numbers start with one).
            if optionsEnded || !arg.hasPrefix("--") {
                if !optionsEnded, arg == "-h" { throw UsageError.helpRequested }
                positionalValues.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            var key = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = key.firstIndex(of: "=") {
                inlineValue = String(key[key.index(after: eq)...])
                key = String(key[..<eq])
            }
            // Not a name an option could have: a value (base64url values may start with two dashes too).
            guard OptionSpec.isValidName(key[...]) else {
                positionalValues.append(arg)
                continue
            }
            if key == "help" { throw UsageError.helpRequested }
            guard let spec = options.first(where: { $0.name == key }) else {
                // A value of option-like spelling (a lower-case identifier) can still be given after a lone `--`.
                let hint = positionals.isEmpty ? "" : " (a value that begins with -- goes after a lone --)"
                throw UsageError("unknown option --\(key) for \(name)" + hint)
            }
            if spec.valueName == nil {
                guard inlineValue == nil else { throw UsageError("--\(key) takes no value") }
                flags.insert(key)
                continue
            }
            guard values[key] == nil else { throw UsageError("--\(key) given twice") }
            if let inlineValue {
                values[key] = inlineValue
            } else {
                // An option that takes a value always takes the next argument,
                // whatever it looks like (values may start with dashes).
                guard i < args.count else {
                    throw UsageError("--\(key) needs a value \(spec.valueName!)")
                }
                values[key] = args[i]
                i += 1
            }
        }
        for o in options where o.isRequired && values[o.name] == nil && !flags.contains(o.name) {
            throw UsageError("missing --\(o.name)" + (o.valueName.map { " \($0)" } ?? ""))
        }
        guard positionalValues.count == positionals.count else {
            throw UsageError(positionals.isEmpty ? "\(name) takes no positional arguments"
                             : "\(name) expects \(positionals.joined(separator: " "))")
        }
        return ParsedArguments(values: values, flags: flags, positionals: positionalValues)
    }
}

extension String {
    /// The string padded with spaces to `width` characters (never truncated).
    func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
