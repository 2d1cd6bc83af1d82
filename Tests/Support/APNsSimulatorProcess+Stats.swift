extension APNsSimulatorProcess {
    /// `GET /_sim/stats`.
    public struct Stats: Decodable, Sendable, Hashable {
        /// Requests answered on `/3/device/`.
        public let total: Int
        /// By status code ("200", "410", …).
        public let byStatus: [String: Int]
        /// By error reason.
        public let byReason: [String: Int]
        /// Connections that carried at least one `/3/device/` request.
        public let connections: Int
        /// Connections accepted, and open now (control requests included).
        public let connectionsAccepted: Int
        public let connectionsOpen: Int
        /// Deliveries held in memory.
        public let deliveriesHeld: Int
        /// Provider tokens verified with ECDSA (the rest came from the cache).
        public let providerTokenVerifications: Int

        enum CodingKeys: String, CodingKey {
            case total, connections
            case byStatus = "by_status"
            case byReason = "by_reason"
            case connectionsAccepted = "connections_accepted"
            case connectionsOpen = "connections_open"
            case deliveriesHeld = "deliveries_held"
            case providerTokenVerifications = "provider_token_verifications"
        }

        /// Requests answered with `status`.
        public func count(status: Int) -> Int { byStatus[String(status)] ?? 0 }
    }
}
