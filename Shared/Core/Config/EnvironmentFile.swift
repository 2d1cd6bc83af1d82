/// A `KEY=value` file as systemd's `EnvironmentFile=` reads it (a strict subset).
///
/// - Blank lines and lines whose first non-blank character is `#` or `;` are comments.
/// - `KEY=value`: the key is letters, digits and `_` (not starting with a digit);
///   blanks around the key and before the value are dropped.
/// - Unquoted values: trailing blanks are dropped; a backslash keeps the next
///   character (`\\` is one backslash); a backslash at the end of a line
///   continues the value on the next line.
/// - `"double quoted"`: `\"`, `\\`, `\$` and `` \` `` are escapes, other
///   backslashes are kept; may span lines.
/// - `'single quoted'`: taken literally; may span lines.
/// - No variable expansion, no `export`, no inline comments (`#` inside a value is text).
///
/// Stricter than systemd: a line without `=`, text after a closing quote,
/// an unterminated quote and a key given twice are errors (systemd would
/// ignore or merge them silently).
public struct EnvironmentFile: Sendable {
    public struct Entry: Sendable, Equatable {
        public let key: String
        public let value: String
        /// The line the key is on (1-based).
        public let line: Int
    }

    public let path: String
    public let entries: [Entry]

    /// The entry for `key`, if any.
    public subscript(key: String) -> Entry? { entries.first { $0.key == key } }

    /// Parses `text` read from `path` (the path is only used in error messages).
    public init(parsing text: String, path: String) throws(ConfigurationError) {
        self.path = path
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        var parser = Parser(scalars: scalars, path: path)
        entries = try parser.parse()
    }

    /// Reads and parses the file at `path` (at most 1 MiB of UTF-8).
    public init(contentsOf path: String) throws(ConfigurationError) {
        let bytes: [UInt8]
        do {
            bytes = try FileReading.read(path, limit: 1 << 20)
        } catch {
            throw ConfigurationError(key: "--config", reason: "cannot read \(path): \(error.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(key: "--config", reason: "\(path) is not UTF-8 text")
        }
        try self.init(parsing: text, path: path)
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        let path: String
        var i = 0
        var line = 1

        init(scalars: [Unicode.Scalar], path: String) {
            self.scalars = scalars
            self.path = path
        }

        func fail(_ reason: String, line: Int) -> ConfigurationError {
            ConfigurationError(key: "--config", reason: "\(path) line \(line): \(reason)")
        }

        var current: Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

        static func isBlank(_ s: Unicode.Scalar) -> Bool { s == " " || s == "\t" || s == "\r" }

        mutating func skipBlanks() { while let c = current, Self.isBlank(c) { i += 1 } }

        mutating func skipToEndOfLine() { while let c = current, c != "\n" { i += 1 } }

        mutating func parse() throws(ConfigurationError) -> [Entry] {
            var entries: [Entry] = []
            var seen: [String: Int] = [:]
            while i < scalars.count {
                skipBlanks()
                guard let c = current else { break }
                if c == "\n" { i += 1; line += 1; continue }
                if c == "#" || c == ";" { skipToEndOfLine(); continue }
                if c == "\u{0}" { throw fail("contains a NUL character", line: line) }
                let keyLine = line
                var key = ""
                while let k = current, k != "=", k != "\n" { key.unicodeScalars.append(k); i += 1 }
                guard current == "=" else { throw fail("expected KEY=value", line: keyLine) }
                i += 1
                while let last = key.unicodeScalars.last, Self.isBlank(last) { key.unicodeScalars.removeLast() }
                guard Self.isValidKey(key) else {
                    throw fail("'\(ConfigurationError.displayable(key, limit: 40))' is not a valid variable name", line: keyLine)
                }
                if let previous = seen[key] { throw fail("\(key) is set twice (also on line \(previous))", line: keyLine) }
                seen[key] = keyLine
                skipBlanks()
                let value = try parseValue(keyLine: keyLine)
                entries.append(Entry(key: key, value: value, line: keyLine))
            }
            return entries
        }

        mutating func parseValue(keyLine: Int) throws(ConfigurationError) -> String {
            var value = String.UnicodeScalarView()
            switch current {
            case "\"":
                i += 1
                while true {
                    guard let c = current else { throw fail("unterminated double quote", line: keyLine) }
                    i += 1
                    if c == "\"" { break }
                    if c == "\\", let next = current {
                        if next == "\"" || next == "\\" || next == "$" || next == "`" { value.append(next); i += 1; continue }
                        if next == "\n" { i += 1; line += 1; continue }
                    }
                    if c == "\n" { line += 1 }
                    if c == "\u{0}" { throw fail("contains a NUL character", line: line) }
                    value.append(c)
                }
                try expectEndOfLine()
            case "'":
                i += 1
                while true {
                    guard let c = current else { throw fail("unterminated single quote", line: keyLine) }
                    i += 1
                    if c == "'" { break }
                    if c == "\n" { line += 1 }
                    if c == "\u{0}" { throw fail("contains a NUL character", line: line) }
                    value.append(c)
                }
                try expectEndOfLine()
            default:
                // Blanks are dropped at the end, but not escaped ones.
                var kept = 0
                while let c = current, c != "\n" {
                    i += 1
                    if c == "\u{0}" { throw fail("contains a NUL character", line: line) }
                    if c == "\\" {
                        guard let next = current else { break }
                        i += 1
                        if next == "\n" { line += 1; continue }
                        value.append(next)
                        kept = value.count
                        continue
                    }
                    value.append(c)
                    if !Self.isBlank(c) { kept = value.count }
                }
                value = String.UnicodeScalarView(value.prefix(kept))
            }
            return String(value)
        }

        mutating func expectEndOfLine() throws(ConfigurationError) {
            skipBlanks()
            if let c = current, c != "\n" { throw fail("unexpected text after the closing quote", line: line) }
        }

        static func isValidKey(_ key: String) -> Bool {
            guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return key.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
                || $0 == "_" }
        }
    }
}
