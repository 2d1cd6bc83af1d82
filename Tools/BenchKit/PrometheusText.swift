/// Series read from a Prometheus text exposition (0.0.4), for benchmarks that count a service's work.
public struct PrometheusText: Sendable {
    /// One sample: its metric name, labels and value.
    public struct Sample: Sendable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public let samples: [Sample]

    public init(_ text: String) {
        samples = text.split(separator: "\n").compactMap(Self.sample)
    }

    /// The sum of the samples of `name` whose labels include `matching`.
    public func sum(_ name: String, matching: [String: String] = [:]) -> Double {
        samples.reduce(0) { total, s in
            s.name == name && matching.allSatisfy { s.labels[$0.key] == $0.value } ? total + s.value : total
        }
    }

    /// The samples of `name` summed by the value of `label` (those matching `matching`).
    public func sum(_ name: String, by label: String, matching: [String: String] = [:]) -> [String: Double] {
        var out: [String: Double] = [:]
        for s in samples where s.name == name && matching.allSatisfy({ s.labels[$0.key] == $0.value }) {
            out[s.labels[label] ?? "", default: 0] += s.value
        }
        return out
    }

    /// `name{a="x",b="y"} 12`; nil for comments and lines it cannot read (label values with escaped quotes are not expected here).
    static func sample(_ line: Substring) -> Sample? {
        guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "),
              let value = Double(line[line.index(after: space)...]) else { return nil }
        let series = line[..<space]
        guard let open = series.firstIndex(of: "{") else { return Sample(name: String(series), labels: [:], value: value) }
        var labels: [String: String] = [:]
        for pair in series[series.index(after: open)...].dropLast().split(separator: "\",") {
            guard let eq = pair.firstIndex(of: "=") else { continue }
            labels[String(pair[..<eq])] = String(pair[pair.index(after: eq)...].drop(while: { $0 == "\"" }).filter { $0 != "\"" })
        }
        return Sample(name: String(series[..<open]), labels: labels, value: value)
    }
}
