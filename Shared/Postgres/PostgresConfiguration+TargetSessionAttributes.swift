extension PostgresClient.Configuration {
    /// libpq's `target_session_attrs`: which server of the host list a connection accepts.
    ///
    /// With several hosts libpq tries them in order and keeps the first whose
    /// session has these attributes; `readWrite` skips standbys (hot standby
    /// in recovery), so after a failover new connections find the promoted server.
    public enum TargetSessionAttributes: String, Sendable, CaseIterable {
        case any
        case readWrite = "read-write"
        case readOnly = "read-only"
        case primary
        case standby
        case preferStandby = "prefer-standby"
    }
}
