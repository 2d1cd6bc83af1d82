extension ConfigurationSpec {
    /// A Markdown table of every setting: key, default, meaning (for docs and `--help`).
    public func markdownTable() -> String {
        var lines = ["| key | default | meaning |", "| --- | --- | --- |"]
        for s in settings {
            let name = key(s)
            let defaultText = s.isRequired || s.defaultDescription.hasPrefix("(") ? s.defaultDescription : "`\(s.defaultDescription)`"
            var meaning = s.help + " " + Self.capitalized(s.valueDescription) + "."
            if s.isSecret { meaning += " Secret: never logged; may be given as `\(name)_FILE`, a file holding the value." }
            lines.append("| " + ["`\(name)`", defaultText, meaning].map(Self.cell).joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Plain text for `--help`: every setting, its values, default and meaning.
    public func helpText() -> String {
        var lines = [
            "settings (environment variables; also KEY=value lines in --config FILE; the environment wins over the file):",
        ]
        for s in settings {
            var head = "  " + key(s) + "  " + s.valueDescription + ", default " + s.defaultDescription
            if s.isSecret { head += ", secret (or \(key(s))_FILE)" }
            lines.append(head)
            lines.append("      " + s.help)
        }
        return lines.joined(separator: "\n")
    }

    static func cell(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "|": out += "\\|"
            case "\n", "\r": out += " "
            default: out.append(c)
            }
        }
        return out
    }

    static func capitalized(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }
}
