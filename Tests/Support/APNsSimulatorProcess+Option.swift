extension APNsSimulatorProcess {
    /// Start-up settings beyond the defaults (no latency, 1000 streams,
    /// tokens valid for an hour).
    public enum Option: Sendable, Hashable {
        /// Hold every `/3/device` answer back this many milliseconds.
        case latencyMS(Int)
        /// SETTINGS_MAX_CONCURRENT_STREAMS.
        case maxConcurrentStreams(Int)
        /// Seconds after `iat` a provider token expires.
        case tokenMaxAge(seconds: Int)
        /// Seconds a team's provider token must be in use before another is accepted (0: the 20-minute rule off).
        case tokenUpdateInterval(seconds: Int)
        /// Deliveries kept in memory.
        case keepDeliveries(Int)
        /// Give the simulator the PEM public key instead of the `.p8`.
        case publicKeyFile
        /// `--log-level` (the log is `logText()`).
        case logLevel(String)
        /// Serve as Apple does (no ALPN needed, `apns-push-type` optional); without it the harness passes `--strict`.
        case appleLenient
        /// Extra command-line arguments, as given.
        case arguments([String])

        var arguments: [String] {
            switch self {
            case .latencyMS(let n): ["--latency-ms", String(n)]
            case .maxConcurrentStreams(let n): ["--max-concurrent-streams", String(n)]
            case .tokenMaxAge(let seconds): ["--token-max-age", String(seconds)]
            case .tokenUpdateInterval(let seconds): ["--token-update-interval", String(seconds)]
            case .keepDeliveries(let n): ["--keep-deliveries", String(n)]
            case .publicKeyFile, .appleLenient: []
            case .logLevel(let level): ["--log-level", level]
            case .arguments(let extra): extra
            }
        }
    }
}
