/// What the `/admin` page shows, read at one moment.
struct StatusSnapshot: Sendable {
    struct Window: Sendable {
        var label: String
        var seconds: Int64
        var sent: Int64
        var failed: Int64
        var expired: Int64
    }

    var instance: String
    var version: String
    var generatedAt: Int64
    var windows: [Window]
    var queued: Int64
    var sending: Int64
    var dueNow: Int64
    var oldestAgeSeconds: Double
    var failuresByReason: [(reason: String, count: Int64)]
    var recentFailures: [DeliveryListItem]
    var acceptedHere: Int64
    var apnsWindowLimit: Int
    var apnsInFlight: Int
    var activePairings: Int64
}
