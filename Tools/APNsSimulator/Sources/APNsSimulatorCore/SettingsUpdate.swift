import MailwakeProtocol

/// The body of `POST /_sim/config`: any of
/// `{"latency_ms":N,"rates":{"410":0.01,...},"goaway_after":N,"max_concurrent_streams":N}`.
/// `rates` replaces the whole table (`{}` clears it).
public struct SettingsUpdate: Sendable, Hashable, Decodable {
    public var latencyMS: Int?
    public var rates: [String: Double]?
    public var goawayAfter: Int?
    public var maxConcurrentStreams: Int?

    public init(latencyMS: Int? = nil, rates: [String: Double]? = nil, goawayAfter: Int? = nil, maxConcurrentStreams: Int? = nil) {
        self.latencyMS = latencyMS
        self.rates = rates
        self.goawayAfter = goawayAfter
        self.maxConcurrentStreams = maxConcurrentStreams
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case rates
        case latencyMS = "latency_ms"
        case goawayAfter = "goaway_after"
        case maxConcurrentStreams = "max_concurrent_streams"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "config")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        latencyMS = try c.decodeIfPresent(Int.self, forKey: .latencyMS)
        rates = try c.decodeIfPresent([String: Double].self, forKey: .rates)
        goawayAfter = try c.decodeIfPresent(Int.self, forKey: .goawayAfter)
        maxConcurrentStreams = try c.decodeIfPresent(Int.self, forKey: .maxConcurrentStreams)
    }
}
