import MailwakeProtocol

/// The settings that `POST /_sim/config` changes while the simulator runs.
public struct SimulatorSettings: Sendable, Hashable {
    /// Milliseconds every `/3/device` answer is held back.
    public var latencyMS: Int = 0
    /// Random failures of valid requests.
    public var rates: FailureRates = .none
    /// Send GOAWAY on a connection after it has served this many streams (0: never).
    public var goawayAfter: Int = 0
    /// SETTINGS_MAX_CONCURRENT_STREAMS announced to connections opened from now on.
    public var maxConcurrentStreams: Int = 1000

    public init(latencyMS: Int = 0, rates: FailureRates = .none, goawayAfter: Int = 0, maxConcurrentStreams: Int = 1000) {
        self.latencyMS = latencyMS
        self.rates = rates
        self.goawayAfter = goawayAfter
        self.maxConcurrentStreams = maxConcurrentStreams
    }

    /// Applies the fields `update` carries.
    public func applying(_ update: SettingsUpdate) throws(SimulatorError) -> SimulatorSettings {
        var s = self
        if let v = update.latencyMS {
            guard (0...600_000).contains(v) else { throw SimulatorError("latency_ms must be 0...600000") }
            s.latencyMS = v
        }
        if let v = update.rates {
            var parsed: [Int: Double] = [:]
            for (key, rate) in v {
                guard let status = Int(key) else { throw SimulatorError("rates: \(key) is not a status code") }
                parsed[status] = rate
            }
            s.rates = try FailureRates(parsed)
        }
        if let v = update.goawayAfter {
            guard v >= 0 else { throw SimulatorError("goaway_after must not be negative") }
            s.goawayAfter = v
        }
        if let v = update.maxConcurrentStreams {
            guard (1...100_000).contains(v) else { throw SimulatorError("max_concurrent_streams must be 1...100000") }
            s.maxConcurrentStreams = v
        }
        return s
    }

    /// The JSON members of these settings.
    func write(to w: inout JSONWriter) {
        w.int("latency_ms", Int64(latencyMS))
        rates.write("rates", to: &w)
        w.int("goaway_after", Int64(goawayAfter))
        w.int("max_concurrent_streams", Int64(maxConcurrentStreams))
    }
}
