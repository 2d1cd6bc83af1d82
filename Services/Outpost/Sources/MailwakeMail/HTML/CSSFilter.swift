/// Filters CSS from e-mail: `style` attributes to an allow-list of layout and
/// typography properties, and `<style>` sheets to plain rules and `@media`
/// blocks of such declarations. Nothing that loads, runs or escapes survives:
/// no `url()`, `expression()`, `image()`, backslash escapes, `@import`,
/// `@font-face` or `position`.
enum CSSFilter {
    /// Properties kept (their values are checked too).
    static let properties: Set<String> = [
        "color", "background-color", "background", "opacity",
        "font", "font-family", "font-size", "font-style", "font-weight", "font-variant",
        "text-align", "text-decoration", "text-decoration-line", "text-decoration-color", "text-transform", "text-indent",
        "text-overflow", "line-height", "letter-spacing", "word-spacing", "word-break", "word-wrap", "overflow-wrap",
        "white-space", "vertical-align", "direction", "unicode-bidi",
        "margin", "margin-top", "margin-right", "margin-bottom", "margin-left",
        "padding", "padding-top", "padding-right", "padding-bottom", "padding-left",
        "border", "border-top", "border-right", "border-bottom", "border-left",
        "border-color", "border-style", "border-width", "border-radius",
        "border-top-color", "border-right-color", "border-bottom-color", "border-left-color",
        "border-top-style", "border-right-style", "border-bottom-style", "border-left-style",
        "border-top-width", "border-right-width", "border-bottom-width", "border-left-width",
        "border-top-left-radius", "border-top-right-radius", "border-bottom-left-radius", "border-bottom-right-radius",
        "border-collapse", "border-spacing", "table-layout", "caption-side", "empty-cells",
        "width", "height", "max-width", "min-width", "max-height", "min-height",
        "display", "float", "clear", "overflow", "overflow-x", "overflow-y", "visibility",
        "list-style", "list-style-type", "list-style-position",
        "box-sizing", "text-shadow", "box-shadow",
        "mso-line-height-rule", "mso-table-lspace", "mso-table-rspace", "-webkit-text-size-adjust", "-ms-text-size-adjust",
    ]

    /// CSS functions a value may call.
    static let functions: Set<String> = ["rgb", "rgba", "hsl", "hsla", "calc"]

    /// Words that never appear in a kept value, whatever the property.
    static let forbidden = ["url", "expression", "javascript", "vbscript", "image", "element", "attr", "var(", "env(",
                            "behavior", "binding", "@", "\\", "<", ">", "{", "}", "&", "/*", "*/", "`"]

    /// A `style` attribute's declarations, filtered; empty when nothing is kept.
    static func declarations(_ css: String) -> String {
        let bytes = Array(stripComments(css).utf8)
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        for item in bytes.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true) {
            guard let colon = item.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = Bytes.lowercased(Bytes.trimmed(item[item.startIndex..<colon]))
            let value = Bytes.trimmed(item[(colon + 1)...])
            guard properties.contains(String(decoding: name, as: UTF8.self)), isSafeValue(value) else { continue }
            if !kept.isEmpty { kept.append(UInt8(ascii: ";")) }
            kept += name
            kept.append(UInt8(ascii: ":"))
            kept += value
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// Whether a declaration value is plain: short, no forbidden words, only
    /// allowed functions, balanced quotes and parentheses.
    static func isSafeValue(_ value: String) -> Bool { isSafeValue(Array(value.utf8)[...]) }

    static let forbiddenBytes: [[UInt8]] = forbidden.map { Array($0.utf8) }

    static func isSafeValue(_ value: ArraySlice<UInt8>) -> Bool {
        guard !value.isEmpty, value.count <= 512 else { return false }
        let lower = Bytes.lowercased(value)
        for word in forbiddenBytes where Bytes.contains(lower, word) { return false }
        var depth = 0
        var quote: UInt8? = nil
        var identifier: [UInt8] = []
        for b in lower {
            if let q = quote {
                if b == q { quote = nil }
                continue
            }
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                quote = b
            case UInt8(ascii: "("):
                guard functions.contains(String(decoding: identifier,
                                                as: UTF8.self)) || (depth > 0 && identifier.isEmpty) else { return false }
                depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth < 0 { return false }
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                identifier.append(b)
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if !identifier.isEmpty { identifier.append(b) }
                continue
            case UInt8(ascii: " "), UInt8(ascii: "#"), UInt8(ascii: "%"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: "+"),
                 UInt8(ascii: "!"), UInt8(ascii: "/"), UInt8(ascii: "*"), UInt8(ascii: "\t"):
                break
            default:
                if b < 0x80 { return false }   // other ASCII punctuation or controls
            }
            identifier.removeAll(keepingCapacity: true)
        }
        return quote == nil && depth == 0
    }

    /// A `<style>` sheet, filtered: rules whose selectors are plain and
    /// whose declarations survive, inside `@media` at most. Never contains `<`.
    /// With `scope` (a selector naming the message's container), every
    /// selector is confined to the container's descendants (`scoped`).
    static func stylesheet(_ css: String, maxBytes: Int = 256 * 1024, scope: String? = nil) -> String {
        var scanner = Scanner(Array(stripComments(String(css.utf8.prefix(maxBytes)) ?? "").utf8))
        var out = ""
        filterRules(&scanner, into: &out, depth: 0, scope: scope)
        return out
    }

    /// `selectors` (a comma list) confined to `scope`: each becomes
    /// `<scope> <selector>`, so it matches only inside the container and
    /// never the page around it. A leading `html`, `body` or `:root` stands
    /// for the container itself; a selector that would then reach the
    /// container's siblings (`body ~ div`) is dropped, and so is one naming
    /// the container other than at its start. Selectors scoped already (a
    /// second pass) are kept as they are. Nil when none is left.
    static func scoped(_ selectors: String, in scope: String) -> String? {
        var kept: [String] = []
        for part in splitSelectorList(selectors) {
            let selector = part.trimmingSpaces
            guard !selector.isEmpty else { continue }
            if isScoped(selector, scope) {
                kept.append(selector)
                continue
            }
            if selector.contains(scope.filter { $0 != "[" && $0 != "]" }) { continue }   // names the container another way
            var rest = Substring(selector)
            while true {
                let lower = rest.prefix(6).lowercased()
                var token = 0
                for root in ["html", "body", ":root"] where lower.hasPrefix(root) {
                    let after = rest.dropFirst(root.count).first
                    if after == nil || after == " " || after == "\t" || after == "\n" || after == ">" || after == "~"
                        || after == "+" { token = root.count }
                }
                guard token > 0 else { break }
                rest = rest.dropFirst(token).drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            }
            if rest.isEmpty {
                kept.append(scope)
            } else if rest.first == "~" || rest.first == "+" {
                continue   // the container's siblings: outside the message
            } else {
                kept.append("\(scope) \(rest)")
            }
        }
        return kept.isEmpty ? nil : kept.joined(separator: ",")
    }

    /// Whether `selector` starts with `scope` and then stays inside it: the
    /// scope alone, or followed by a descendant or child combinator (never `~` or `+`).
    private static func isScoped(_ selector: String, _ scope: String) -> Bool {
        guard selector.hasPrefix(scope) else { return false }
        let rest = selector.dropFirst(scope.count)
        guard let first = rest.first else { return true }
        guard first == " " || first == ">" else { return false }
        let next = rest.drop { $0 == " " || $0 == ">" }.first
        return next != nil && next != "~" && next != "+"
    }

    /// A selector list split at commas outside parentheses, brackets and quotes.
    static func splitSelectorList(_ list: String) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var quote: Character?
        var start = list.startIndex
        var i = list.startIndex
        while i < list.endIndex {
            let c = list[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "(" || c == "[" {
                depth += 1
            } else if c == ")" || c == "]" {
                depth -= 1
            } else if c == ",", depth == 0 {
                parts.append(list[start..<i])
                start = list.index(after: i)
            }
            i = list.index(after: i)
        }
        parts.append(list[start...])
        return parts
    }

    private static func filterRules(_ s: inout Scanner, into out: inout String, depth: Int, scope: String?) {
        while let prelude = s.readUntil(anyOf: [UInt8(ascii: "{"), UInt8(ascii: ";"), UInt8(ascii: "}")]) {
            let head = prelude.text.trimmingSpaces
            switch prelude.stop {
            case UInt8(ascii: "}"):
                return   // end of the enclosing block
            case UInt8(ascii: ";"):
                continue  // a statement at-rule (@import, @charset): dropped
            default:
                if head.hasPrefix("@") {
                    if depth == 0, head.lowercased().hasPrefix("@media"), isSafeMediaQuery(String(head.dropFirst(6))) {
                        var inner = ""
                        filterRules(&s, into: &inner, depth: depth + 1, scope: scope)
                        if !inner.isEmpty { out += "\(head){\(inner)}" }
                    } else {
                        s.skipBlock()
                    }
                    continue
                }
                guard let body = s.readUntil(anyOf: [UInt8(ascii: "}")]) else { return }
                guard isSafeSelector(head) else { continue }
                let kept = declarations(body.text)
                guard !kept.isEmpty else { continue }
                if let scope {
                    guard let selectors = scoped(head, in: scope) else { continue }
                    out += "\(selectors){\(kept)}"
                } else {
                    out += "\(head){\(kept)}"
                }
            }
        }
    }

    static func isSafeSelector(_ selector: String) -> Bool {
        guard !selector.isEmpty, selector.utf8.count <= 1024 else { return false }
        return selector.utf8.allSatisfy { b in
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return " \t\n.#:,>+~*-_[]=\"'()|^$".utf8.contains(b) || b >= 0x80
            }
        }
    }

    static func isSafeMediaQuery(_ query: String) -> Bool {
        guard query.utf8.count <= 512 else { return false }
        return query.utf8.allSatisfy { b in
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return " \t\n(),:.-".utf8.contains(b)
            }
        }
    }

    /// Removes `/* … */` comments; an unterminated one ends the text.
    static func stripComments(_ css: String) -> String {
        let bytes = Array(css.utf8)
        guard Bytes.contains(bytes, Array("/*".utf8)) else { return css }
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                var j = i + 2
                while j + 1 < bytes.count, !(bytes[j] == UInt8(ascii: "*") && bytes[j + 1] == UInt8(ascii: "/")) { j += 1 }
                if j + 1 >= bytes.count { break }
                out.append(UInt8(ascii: " "))
                i = j + 2
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A byte cursor over a sheet.
    struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// The text up to the first of `stops` (outside quotes) and that stop, or nil at the end.
        mutating func readUntil(anyOf stops: Set<UInt8>) -> (text: String, stop: UInt8)? {
            let start = position
            var quote: UInt8? = nil
            while position < bytes.count {
                let b = bytes[position]
                position += 1
                if let q = quote {
                    if b == q { quote = nil }
                } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    quote = b
                } else if stops.contains(b) {
                    return (String(decoding: bytes[start..<(position - 1)], as: UTF8.self), b)
                }
            }
            return nil
        }

        /// Skips a `{ … }` block whose `{` was just read, nested blocks included.
        mutating func skipBlock() {
            var depth = 1
            while position < bytes.count, depth > 0 {
                if bytes[position] == UInt8(ascii: "{") { depth += 1 } else if bytes[position] == UInt8(ascii: "}") { depth -= 1 }
                position += 1
            }
        }
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingSpaces }
}

/// Byte helpers of the sanitizer's hot paths (ASCII case and spaces only).
enum Bytes {
    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C }

    static func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var lo = s.startIndex
        var hi = s.endIndex
        while lo < hi, isSpace(s[lo]) { lo += 1 }
        while hi > lo, isSpace(s[hi - 1]) { hi -= 1 }
        return s[lo..<hi]
    }

    static func lowercased(_ s: ArraySlice<UInt8>) -> [UInt8] {
        s.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count, haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return true }
            }
            i += 1
        }
        return false
    }
}
