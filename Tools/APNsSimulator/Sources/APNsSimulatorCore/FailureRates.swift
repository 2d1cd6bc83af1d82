import MailwakeProtocol

/// Random failures: for each status, the share of valid requests answered
/// with it (`{"410":0.01,"429":0.1,"500":0.05,"503":0.05}`), with Apple's
/// reason for the status (Unregistered, TooManyRequests,
/// InternalServerError, ServiceUnavailable).
public struct FailureRates: Sendable, Hashable {
    /// Status and share, by status; the shares add up to at most 1.
    public private(set) var rates: [(status: Int, rate: Double)]

    public static let none = FailureRates()

    private init() { rates = [] }

    /// Validates and builds; throws a message naming the first bad entry.
    public init(_ rates: [Int: Double]) throws(SimulatorError) {
        var total = 0.0
        for (status, rate) in rates {
            guard (400...599).contains(status) else { throw SimulatorError("rates: status \(status) is not 400...599") }
            guard rate.isFinite, (0...1).contains(rate) else { throw SimulatorError("rates: \(status) must be between 0 and 1") }
            total += rate
        }
        guard total <= 1.000_001 else { throw SimulatorError("rates add up to more than 1") }
        self.rates = rates.filter { $0.value > 0 }.map { (status: $0.key, rate: $0.value) }.sorted { $0.status < $1.status }
    }

    public var isEmpty: Bool { rates.isEmpty }

    /// The status to inject for a draw in 0..<1, or nil.
    public func status(forDraw draw: Double) -> Int? {
        var bound = 0.0
        for entry in rates {
            bound += entry.rate
            if draw < bound { return entry.status }
        }
        return nil
    }

    /// `{"410":0.01,...}`.
    func write(_ key: String, to w: inout JSONWriter) {
        w.beginObject(key)
        for entry in rates { w.raw(String(entry.status), Array(String(entry.rate).utf8)) }
        w.endObject()
    }

    public static func == (a: FailureRates, b: FailureRates) -> Bool {
        a.rates.map(\.status) == b.rates.map(\.status) && a.rates.map(\.rate) == b.rates.map(\.rate)
    }

    public func hash(into hasher: inout Hasher) {
        for entry in rates {
            hasher.combine(entry.status)
            hasher.combine(entry.rate)
        }
    }
}
