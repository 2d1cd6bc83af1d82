extension APNsSimulatorProcess {
    /// One request the simulator received on `/3/device/…` and how it answered.
    public struct Delivery: Decodable, Sendable, Hashable {
        /// 1, 2, … in the order requests were answered.
        public let seq: UInt64
        public let receivedAtMS: Int64
        /// The simulator's connection number (1, 2, … in accept order).
        public let connection: UInt64
        public let stream: Int32
        /// From the path; nil when the path was not `/3/device/<token>`.
        public let deviceToken: String?
        public let pushType: String?
        public let topic: String?
        /// `apns-priority` as a number (nil when absent or not a number).
        public let priority: Int?
        /// The request's `apns-id` header (nil when it had none).
        public let apnsID: String?
        public let collapseID: String?
        /// `apns-expiration` as a number (nil when absent or not a number).
        public let expiration: Int64?
        /// The provider token's `kid`, `iss` and `iat`, when it was verified.
        public let jwtKeyID: String?
        public let jwtIssuer: String?
        public let jwtIssuedAt: Int64?
        /// The request body as text (the JSON payload).
        public let payload: String
        /// The status answered, and the reason for an error.
        public let status: Int
        public let reason: String?
        /// True when accepted while the device was offline (not delivered; see `markOffline`).
        public let held: Bool?

        enum CodingKeys: String, CodingKey {
            case seq, connection, stream, topic, priority, expiration, payload, status, reason, held
            case receivedAtMS = "received_at_ms"
            case deviceToken = "device_token"
            case pushType = "push_type"
            case apnsID = "apns_id"
            case collapseID = "collapse_id"
            case jwtKeyID = "jwt_kid"
            case jwtIssuer = "jwt_iss"
            case jwtIssuedAt = "jwt_iat"
        }

        /// The payload as bytes.
        public var payloadBytes: [UInt8] { Array(payload.utf8) }
    }
}
