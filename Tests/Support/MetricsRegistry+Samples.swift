public import MailwakeCore

extension MetricsRegistry {
    /// The value of one sample, `name` with its labels as rendered (`mailwake_x_total{on="task"}`); nil when absent.
    public func sample(_ name: String) -> Double? {
        let prefix = name + " "
        return render().split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    /// Whether the exposition has `line` as a whole line (so `… 1` does not match `… 10`).
    public func shows(_ line: String) -> Bool {
        render().split(separator: "\n").contains(Substring(line))
    }
}
