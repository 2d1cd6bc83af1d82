/// One `Authentication-Results` header field (RFC 8601): who added it and
/// what each method found.
public struct AuthenticationResults: Sendable, Equatable {
    /// One method's result: `dkim=pass header.d=example.com`.
    public struct Result: Sendable, Equatable {
        /// The method, lower-case, without its version (`dmarc`, `dkim`, `spf`, `arc`…).
        public var method: String
        /// The result, lower-case (`pass`, `fail`, `none`, `neutral`, `temperror`…).
        public var result: String
        /// Properties by `ptype.property`, lower-case keys (`header.from`, `header.d`, `smtp.mailfrom`).
        public var properties: [String: String]
    }

    /// The server that added the field; empty when the field has none (Exchange Online writes it so).
    public var authservID: String
    public var results: [Result]

    /// The longest field value read; longer ones are not results anyone trusts.
    public static let maxValueBytes = 8192

    /// Parses a field value (the text after `Authentication-Results:`, unfolded); nil when it is not one.
    public init?(_ value: String) {
        guard value.utf8.count <= Self.maxValueBytes else { return nil }
        let segments = Self.split(Self.withoutComments(value))
        guard let head = segments.first else { return nil }
        var rest = segments.dropFirst()
        let headTokens = head.split(whereSeparator: \.isWhitespace).map(String.init)
        if headTokens.first?.contains("=") == true {
            authservID = ""
            rest = segments[...]
        } else {
            guard let id = headTokens.first, !id.isEmpty else { return nil }
            authservID = id.lowercased()
            // The head may also say `none` (no results) after an optional version.
        }
        results = rest.compactMap(Self.result)
    }

    /// One `method[/version]=result [reason=…] ptype.property=value…` segment.
    static func result(_ segment: Substring) -> Result? {
        let tokens = segment.split(whereSeparator: \.isWhitespace)
        guard let first = tokens.first, let eq = first.firstIndex(of: "=") else { return nil }
        let method = first[..<eq].split(separator: "/").first.map { $0.lowercased() } ?? ""
        let result = first[first.index(after: eq)...].lowercased()
        guard !method.isEmpty, !result.isEmpty else { return nil }
        var properties: [String: String] = [:]
        for token in tokens.dropFirst() {
            guard let eq = token.firstIndex(of: "=") else { continue }
            let key = token[..<eq].lowercased()
            var value = String(token[token.index(after: eq)...])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            if key.contains("."), properties[key] == nil { properties[key] = value }
        }
        return Result(method: method, result: result, properties: properties)
    }

    /// The value with RFC 5322 comments removed (nested, with quoted pairs), quoted strings kept.
    static func withoutComments(_ value: String) -> String {
        var out = ""
        var depth = 0
        var quoted = false
        var escaped = false
        for ch in value {
            if escaped { escaped = false; if depth == 0 { out.append(ch) }; continue }
            if ch == "\\" { escaped = true; if depth == 0 { out.append(ch) }; continue }
            if quoted { out.append(ch); if ch == "\"" { quoted = false }; continue }
            switch ch {
            case "(": depth += 1
            case ")": depth = max(0, depth - 1); if depth == 0 { out.append(" ") }
            case "\"" where depth == 0: quoted = true; out.append(ch)
            default: if depth == 0 { out.append(ch) }
            }
        }
        return out
    }

    /// Splits on `;` outside quoted strings.
    static func split(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var i = value.startIndex
        while i < value.endIndex {
            let ch = value[i]
            if ch == "\"" { quoted.toggle() }
            if ch == ";", !quoted {
                parts.append(value[start..<i])
                start = value.index(after: i)
            }
            i = value.index(after: i)
        }
        parts.append(value[start...])
        return parts.map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
    }
}

extension Substring {
    var trimmingWhitespace: Substring {
        var s = self
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return s
    }
}
