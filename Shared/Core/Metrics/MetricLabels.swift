/// Label pairs of one time series, kept sorted by name.
public struct MetricLabels: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    public let pairs: [(String, String)]

    public init(_ labels: [String: String]) {
        pairs = labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public static func == (a: MetricLabels, b: MetricLabels) -> Bool {
        a.pairs.count == b.pairs.count && zip(a.pairs, b.pairs).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    public func hash(into hasher: inout Hasher) {
        for (k, v) in pairs {
            hasher.combine(k)
            hasher.combine(v)
        }
    }

    /// `{a="1",b="2"}` or the empty string; `extra` is appended (for `le`).
    func rendered(extra: (String, String)? = nil) -> String {
        var all = pairs
        if let extra { all.append(extra) }
        guard !all.isEmpty else { return "" }
        return "{" + all.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
    }

    static func escape(_ value: String) -> String {
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
