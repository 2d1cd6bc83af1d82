import Synchronization

/// Holds a service's metrics and renders the Prometheus text format (0.0.4).
///
/// Names follow `mailwake_<service>_<thing>_<unit>`. Asking twice for the
/// same name and labels returns the same series; asking for a name with
/// another type or help text is a programming error and traps.
public final class MetricsRegistry: Sendable {
    enum Kind: String, Sendable { case counter, gauge, histogram }

    /// A counter, a gauge or a histogram, as its family's `kind` says. A plain
    /// reference: an enum of class payloads keeps its case in the pointer's
    /// spare bits, where LeakSanitizer cannot follow it.
    typealias Series = AnyObject & Sendable

    struct Family: Sendable {
        let kind: Kind
        let help: String
        let buckets: [Double]
        var series: [MetricLabels: any Series] = [:]
        var order: [MetricLabels] = []
    }

    private let families = Mutex<[String: Family]>([:])

    public init() {}

    /// The counter `name` with `labels`, created on first use.
    public func counter(_ name: String, help: String, labels: MetricLabels = [:]) -> Counter {
        series(name, .counter, help, [], labels, make: { Counter() }) as! Counter
    }

    /// The gauge `name` with `labels`, created on first use.
    public func gauge(_ name: String, help: String, labels: MetricLabels = [:]) -> Gauge {
        series(name, .gauge, help, [], labels, make: { Gauge() }) as! Gauge
    }

    /// The histogram `name` with `labels` and bucket bounds, created on first use.
    public func histogram(_ name: String, help: String, labels: MetricLabels = [:],
                          buckets: [Double] = Histogram.latencyBuckets) -> Histogram {
        precondition(!buckets.isEmpty && zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 }, "buckets must ascend")
        return series(name, .histogram, help, buckets, labels, make: { Histogram(bounds: buckets) }) as! Histogram
    }

    private func series(_ name: String, _ kind: Kind, _ help: String, _ buckets: [Double], _ labels: MetricLabels,
                        make: () -> any Series) -> any Series {
        precondition(Self.isValidName(name), "invalid metric name \(name)")
        for (label, _) in labels.pairs {
            precondition(Self.isValidName(label) && !label.hasPrefix("__") && label != "le", "invalid label name \(label)")
        }
        return families.withLock { all in
            var family = all[name] ?? Family(kind: kind, help: help, buckets: buckets)
            precondition(family.kind == kind && family.help == help && family.buckets == buckets,
                         "metric \(name) registered twice with different definitions")
            if let existing = family.series[labels] { return existing }
            let created = make()
            family.series[labels] = created
            family.order.append(labels)
            all[name] = family
            return created
        }
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first,
              first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0)
            || ("0"..."9").contains($0) }
    }

    /// The text exposition of every metric, families sorted by name.
    public func render() -> String {
        let snapshot = families.withLock { $0 }
        var out = ""
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            out += "# HELP \(name) \(family.help.replacingBackslashesAndNewlines())\n# TYPE \(name) \(family.kind.rawValue)\n"
            for labels in family.order {
                let series = family.series[labels]!
                switch family.kind {
                case .counter:
                    out += "\(name)\(labels.rendered()) \((series as! Counter).current)\n"
                case .gauge:
                    out += "\(name)\(labels.rendered()) \(Self.format((series as! Gauge).current))\n"
                case .histogram:
                    let h = series as! Histogram
                    let s = h.snapshot()
                    for (bound, count) in zip(family.buckets, s.cumulative) {
                        out += "\(name)_bucket\(labels.rendered(extra: ("le", Self.format(bound)))) \(count)\n"
                    }
                    out += "\(name)_bucket\(labels.rendered(extra: ("le", "+Inf"))) \(s.count)\n"
                    out += "\(name)_sum\(labels.rendered()) \(Self.format(s.sum))\n"
                    out += "\(name)_count\(labels.rendered()) \(s.count)\n"
                }
            }
        }
        return out
    }

    static func format(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }
}

extension String {
    func replacingBackslashesAndNewlines() -> String {
        var out = ""
        for c in unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
