import Foundation
import MailwakeCore
import Testing

/// A small reader of the Prometheus text exposition format (0.0.4) that
/// checks the grammar and returns the samples.
struct Exposition {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: String
    }

    var help: [String: String] = [:]
    var types: [String: String] = [:]
    var samples: [Sample] = []

    init(_ text: String) throws {
        guard text.hasSuffix("\n") else { throw Failure("must end with a newline") }
        var familiesSeen: [String] = []
        for raw in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix("# HELP ") {
                let rest = line.dropFirst(7)
                guard let space = rest.firstIndex(of: " ") else { throw Failure("HELP without text: \(line)") }
                let name = String(rest[..<space])
                guard help[name] == nil else { throw Failure("second HELP for \(name)") }
                help[name] = try Self.unescape(String(rest[rest.index(after: space)...]), quotes: false)
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2,
                      ["counter", "gauge", "histogram", "summary",
                       "untyped"].contains(parts[1]) else { throw Failure("bad TYPE: \(line)") }
                let name = String(parts[0])
                guard types[name] == nil, !samples.contains(where: { Self.family(of: $0.name, types: [name: ""]) == name }) else {
                    throw Failure("TYPE for \(name) must come once, before its samples")
                }
                types[name] = String(parts[1])
                familiesSeen.append(name)
            } else if line.hasPrefix("#") || line.isEmpty {
                throw Failure("unexpected line: \(line)")
            } else {
                samples.append(try Self.sample(line))
            }
        }
        for s in samples {
            guard let family = Self.family(of: s.name, types: types) else { throw Failure("sample \(s.name) has no TYPE") }
            guard familiesSeen.contains(family) else { throw Failure("no family \(family)") }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    static func family(of sample: String, types: [String: String]) -> String? {
        if types[sample] != nil { return sample }
        for suffix in ["_bucket", "_sum", "_count"] where sample.hasSuffix(suffix) {
            let base = String(sample.dropLast(suffix.count))
            if types[base] == "histogram" || types[base] == "summary" { return base }
        }
        return nil
    }

    static func sample(_ line: String) throws -> Sample {
        var i = line.startIndex
        var name = ""
        while i < line.endIndex, line[i] != "{", line[i] != " " { name.append(line[i]); i = line.index(after: i) }
        guard name.range(of: "^[a-zA-Z_:][a-zA-Z0-9_:]*$",
                         options: .regularExpression) != nil else { throw Failure("bad metric name in \(line)") }
        var labels: [String: String] = [:]
        if i < line.endIndex, line[i] == "{" {
            i = line.index(after: i)
            while line[i] != "}" {
                var label = ""
                while line[i] != "=" { label.append(line[i]); i = line.index(after: i) }
                guard label.range(of: "^[a-zA-Z_][a-zA-Z0-9_]*$",
                                  options: .regularExpression) != nil else { throw Failure("bad label name \(label)") }
                i = line.index(after: i)
                guard line[i] == "\"" else { throw Failure("label value must be quoted in \(line)") }
                i = line.index(after: i)
                var value = ""
                while line[i] != "\"" {
                    if line[i] == "\\" {
                        value.append(line[i])
                        i = line.index(after: i)
                    }
                    value.append(line[i])
                    i = line.index(after: i)
                }
                i = line.index(after: i)
                guard labels[label] == nil else { throw Failure("label \(label) twice") }
                labels[label] = try unescape(value, quotes: true)
                if line[i] == "," { i = line.index(after: i) }
            }
            i = line.index(after: i)
        }
        guard i < line.endIndex, line[i] == " " else { throw Failure("no value in \(line)") }
        let value = String(line[line.index(after: i)...])
        guard Double(value) != nil || ["+Inf", "-Inf", "NaN"].contains(value) else { throw Failure("bad value \(value)") }
        return Sample(name: name, labels: labels, value: value)
    }

    /// `\\` and `\n` (and `\"` in label values) are the only escapes.
    static func unescape(_ s: String, quotes: Bool) throws -> String {
        var out = ""
        var escaping = false
        for c in s {
            if escaping {
                switch c {
                case "\\": out.append("\\")
                case "n": out.append("\n")
                case "\"" where quotes: out.append("\"")
                default: throw Failure("bad escape \\\(c)")
                }
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else {
                guard c != "\n" else { throw Failure("raw newline") }
                out.append(c)
            }
        }
        guard !escaping else { throw Failure("dangling backslash") }
        return out
    }

    func values(_ name: String, _ labels: [String: String] = [:]) -> [String] {
        samples.filter { $0.name == name && $0.labels == labels }.map(\.value)
    }
}

@Suite struct MetricsTests {
    @Test func counterGaugeAndHelpType() throws {
        let registry = MetricsRegistry()
        let sent = registry.counter("mailwake_relay_envelopes_total", help: "Envelopes accepted.\nSecond line with \\ backslash.",
                                    labels: ["kind": "alert"])
        sent.increment()
        sent.increment(by: 4)
        registry.counter("mailwake_relay_envelopes_total", help: "Envelopes accepted.\nSecond line with \\ backslash.",
                         labels: ["kind": "alert"]).increment()
        let depth = registry.gauge("mailwake_relay_queue_depth", help: "Queued deliveries.")
        depth.set(10)
        depth.decrement(by: 2.5)
        let text = registry.render()
        let exposition = try Exposition(text)
        #expect(exposition.types == ["mailwake_relay_envelopes_total": "counter", "mailwake_relay_queue_depth": "gauge"])
        #expect(exposition.help["mailwake_relay_envelopes_total"] == "Envelopes accepted.\nSecond line with \\ backslash.")
        #expect(text.contains("# HELP mailwake_relay_envelopes_total Envelopes accepted.\\nSecond line with \\\\ backslash.\n"))
        #expect(exposition.values("mailwake_relay_envelopes_total", ["kind": "alert"]) == ["6"])
        #expect(exposition.values("mailwake_relay_queue_depth") == ["7.5"])
        // HELP then TYPE then samples; families sorted by name.
        #expect(text.hasPrefix("# HELP mailwake_relay_envelopes_total"))
        let lines = text.split(separator: "\n")
        #expect(lines[1] == "# TYPE mailwake_relay_envelopes_total counter")
        #expect(lines[2] == "mailwake_relay_envelopes_total{kind=\"alert\"} 6")
    }

    @Test func histogramBucketsAreCumulativeWithInf() throws {
        let registry = MetricsRegistry()
        let latency = registry.histogram("mailwake_relay_delivery_latency_seconds", help: "Accept to APNs.", labels: ["env": "prod"],
                                         buckets: [0.01, 0.1, 1])
        for v in [0.005, 0.01, 0.05, 0.5, 0.7, 3.0] { latency.observe(v) }
        let e = try Exposition(registry.render())
        #expect(e.types["mailwake_relay_delivery_latency_seconds"] == "histogram")
        let buckets = e.samples.filter { $0.name == "mailwake_relay_delivery_latency_seconds_bucket" }
        #expect(buckets.map { $0.labels["le"]! } == ["0.01", "0.1", "1", "+Inf"])
        #expect(buckets.map(\.value) == ["2", "3", "5", "6"])  // cumulative; a value equal to a bound is in it
        #expect(buckets.allSatisfy { $0.labels["env"] == "prod" })
        let counts = buckets.map { Int($0.value)! }
        #expect(counts == counts.sorted())
        #expect(e.values("mailwake_relay_delivery_latency_seconds_count", ["env": "prod"]) == ["6"])
        #expect(buckets.last?.value == e.values("mailwake_relay_delivery_latency_seconds_count", ["env": "prod"]).first)
        let sum = try #require(Double(e.values("mailwake_relay_delivery_latency_seconds_sum", ["env": "prod"]).first ?? ""))
        #expect(abs(sum - 4.265) < 1e-9)
    }

    @Test func labelValuesAreEscaped() throws {
        let registry = MetricsRegistry()
        let tricky = "a \"quoted\" back\\slash\nnew line, comma={}"
        registry.counter("mailwake_outpost_imap_errors_total", help: "IMAP errors.",
                         labels: ["reason": tricky, "mailbox": "ünïcode"]).increment()
        let text = registry.render()
        #expect(text.contains(#"mailwake_outpost_imap_errors_total{mailbox="ünïcode",reason="a \"quoted\" back\\slash\nnew line, "# +
                              #"comma={}"} 1"#))
        let e = try Exposition(text)
        #expect(e.samples.first?.labels == ["reason": tricky, "mailbox": "ünïcode"])
    }

    @Test func seriesAreSharedAndSeparatedByLabels() throws {
        let registry = MetricsRegistry()
        for reason in ["BadDeviceToken", "Unregistered", "BadDeviceToken"] {
            registry.counter("mailwake_relay_apns_responses_total", help: "APNs answers.",
                             labels: ["status": "400", "reason": reason]).increment()
        }
        registry.counter("mailwake_relay_apns_responses_total", help: "APNs answers.", labels: ["status": "200"]).increment(by: 7)
        let e = try Exposition(registry.render())
        #expect(e.values("mailwake_relay_apns_responses_total", ["status": "400", "reason": "BadDeviceToken"]) == ["2"])
        #expect(e.values("mailwake_relay_apns_responses_total", ["status": "400", "reason": "Unregistered"]) == ["1"])
        #expect(e.values("mailwake_relay_apns_responses_total", ["status": "200"]) == ["7"])
        #expect(e.samples.count == 3)
    }

    @Test func gaugeSpecialValues() throws {
        let registry = MetricsRegistry()
        registry.gauge("mailwake_test_inf", help: "x").set(.infinity)
        registry.gauge("mailwake_test_nan", help: "x").set(.nan)
        registry.gauge("mailwake_test_small", help: "x").set(0.000_012_5)
        let e = try Exposition(registry.render())
        #expect(e.values("mailwake_test_inf") == ["+Inf"])
        #expect(e.values("mailwake_test_nan") == ["NaN"])
        #expect(Double(e.values("mailwake_test_small").first ?? "") == 0.000_012_5)
    }
}
