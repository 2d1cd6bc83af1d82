import MailwakeCore

extension OutpostMetrics {
    /// Whole seconds (the times are Unix seconds) up to a day, for devices that were offline.
    static let hopBuckets: [Double] = [0, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400]

    /// Observes one hop's latency (`mailwake_outpost_hop_seconds{hop=…}`); a negative span (clocks apart) counts as 0.
    func hop(_ hop: DeliveryHop, seconds: Int64) {
        registry.histogram("mailwake_outpost_hop_seconds",
                           help: "Per-hop notification latency in whole seconds, " +
                                 "by hop: " + DeliveryHop.allCases.map { "\($0.rawValue) (\($0.help))" }.joined(separator: "; "),
                           labels: ["hop": hop.rawValue], buckets: Self.hopBuckets).observe(Double(max(0, seconds)))
    }
}
