public import MailwakeProtocol

/// Where this outpost's relay is (`mailwake-outpost relay set`).
public struct RelaySettingsRecord: Sendable, Hashable {
    /// Where requests go (scheme, host and port).
    public var url: String
    /// The relay's public origin: the envelope `aud`, the origin requests are
    /// signed for and the `relay` of pairing links. The same as `url` unless
    /// the relay is reached another way (a tunnel, a test address).
    public var origin: String
    public var environment: PushEnvironment
    /// A CA bundle trusted alone for the relay (a private deployment).
    public var caFile: String?

    public init(url: String, origin: String? = nil, environment: PushEnvironment, caFile: String? = nil) {
        self.url = url
        self.origin = origin ?? url
        self.environment = environment
        self.caFile = caFile
    }
}

extension OutpostStore {
    /// Saves the relay settings.
    public func setRelay(_ relay: RelaySettingsRecord) async throws {
        try await set("relay_url", relay.url)
        if relay.origin != relay.url { try await set("relay_origin", relay.origin) } else { try await removeSetting("relay_origin") }
        try await set("relay_environment", relay.environment.rawValue)
        if let ca = relay.caFile { try await set("relay_ca_file", ca) } else { try await removeSetting("relay_ca_file") }
    }

    /// The relay settings; throws when `relay set` has not run.
    public func relay() async throws -> RelaySettingsRecord {
        guard let url = try await setting("relay_url"), let env = try await setting("relay_environment"),
              let environment = PushEnvironment(rawValue: env)
        else { throw OutpostError(.relayNotConfigured,
                                  "no relay is set: run `mailwake-outpost relay set --url URL --env production|sandbox`") }
        return RelaySettingsRecord(url: url, origin: try await setting("relay_origin"), environment: environment,
                                   caFile: try await setting("relay_ca_file"))
    }
}
