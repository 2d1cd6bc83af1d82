/// A notification channel besides the paired iPhones: a Bark server, a
/// Pushover application, or a webhook. Its secrets are sealed in the
/// database and read separately (`OutpostStore.channelSecrets`).
public struct ChannelRecord: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case bark, pushover, webhook
    }

    public var id: Int64
    public var name: String
    public var kind: Kind
    /// Bark: the server (`https://api.day.app`); Pushover: the API base
    /// (`https://api.pushover.net`); webhook: the endpoint.
    public var url: String
    public var options: ChannelOptions
    /// Allow loopback, private and link-local addresses (a LAN Bark server,
    /// a local receiver). Off by default: user-supplied URLs must not reach
    /// the outpost's own network.
    public var allowPrivate: Bool
    public var enabled: Bool
    /// Why the outpost disabled it (a webhook answering 410 Gone).
    public var disabledReason: String?

    public init(id: Int64 = 0, name: String, kind: Kind, url: String, options: ChannelOptions = ChannelOptions(),
                allowPrivate: Bool = false,
                enabled: Bool = true, disabledReason: String? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.url = url
        self.options = options
        self.allowPrivate = allowPrivate
        self.enabled = enabled
        self.disabledReason = disabledReason
    }
}

/// A channel's settings that are not secret.
public struct ChannelOptions: Sendable, Equatable, Codable {
    /// Bark: notification group (default: the mailbox label).
    public var group: String?
    /// Bark: active, timeSensitive, passive or critical (default: timeSensitive with a code, else active).
    public var level: String?
    /// Bark: "gcm" or "cbc" (AES-256) when the Bark app's push encryption is on.
    public var encryption: String?
    /// Pushover: -2…2 (default 0).
    public var priority: Int?
    /// A link opened from the notification (Bark, Pushover), e.g. your webmail.
    public var link: String?
    /// A PEM CA bundle trusted for this channel alone (a private CA).
    public var caFile: String?

    public init() {}
}

/// A channel's secrets, sealed at rest.
public struct ChannelSecrets: Sendable, Equatable, Codable {
    /// Bark: the device key.
    public var deviceKey: String?
    /// Bark: the push-encryption key (32 characters for AES-256).
    public var encryptionKey: String?
    /// Pushover: the application token.
    public var appToken: String?
    /// Pushover: the user (or group) key.
    public var userKey: String?
    /// Webhook: `whsec_` + base64 of the signing key.
    public var webhookSecret: String?

    public init() {}
}
