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
        /// Distinct provider tokens, refreshes and TooManyProviderTokenUpdates answers per team and key.
        public let providerTokens: [ProviderTokens]

        enum CodingKeys: String, CodingKey {
            case total, connections
            case byStatus = "by_status"
            case byReason = "by_reason"
            case connectionsAccepted = "connections_accepted"
            case connectionsOpen = "connections_open"
            case deliveriesHeld = "deliveries_held"
            case providerTokenVerifications = "provider_token_verifications"
            case providerTokens = "provider_tokens"
        }

        /// The provider-token counts of `teamID` (zeros when it sent none).
        public func providerTokens(team teamID: String) -> ProviderTokens {
            providerTokens.first { $0.teamID == teamID } ?? ProviderTokens(teamID: teamID, keyID: "", distinctTokens: 0, refreshes: 0,
                                                                             tooManyProviderTokenUpdates: 0, requestsWithReplacedToken: 0)
        }

        /// Requests answered with `status`.
        public func count(status: Int) -> Int { byStatus[String(status)] ?? 0 }
    }
}

extension APNsSimulatorProcess.Stats {
    /// One entry of `provider_tokens` in `GET /_sim/stats`.
    public struct ProviderTokens: Decodable, Sendable, Hashable {
        public let teamID: String
        public let keyID: String
        /// Distinct tokens the simulator adopted.
        public let distinctTokens: Int
        /// Adoptions that replaced an earlier token.
        public let refreshes: Int
        /// New tokens refused because the previous one was younger than the update interval.
        public let tooManyProviderTokenUpdates: Int
        /// Requests that still carried a token after a newer one was adopted.
        public let requestsWithReplacedToken: Int

        enum CodingKeys: String, CodingKey {
            case teamID = "team_id"
            case keyID = "key_id"
            case distinctTokens = "distinct_tokens"
            case refreshes
            case tooManyProviderTokenUpdates = "too_many_provider_token_updates"
            case requestsWithReplacedToken = "requests_with_replaced_token"
        }
    }
}
